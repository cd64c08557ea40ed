# Thirty units and a main that calls each.
i=1
: > calls.h
while [ $i -le 30 ]; do
  echo "int u$i(void) { return $i; }" > u$i.c
  echo "int u$i(void);" >> calls.h
  i=$((i + 1))
done
i=1
{ echo '#include <stdio.h>'; echo '#include "calls.h"'
  printf 'int main(void) { printf("%%d\\n", 0'
  while [ $i -le 30 ]; do printf ' + u%d()' $i; i=$((i + 1)); done
  echo '); }'; } > main.c
for f in u*.c; do ulto-clang -c -O2 -flto -funified-lto "$f" -o "${f%.c}.o"; done

