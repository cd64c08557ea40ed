void speak_cat();
void speak_dog();
int main() { speak_cat(); speak_dog(); }
