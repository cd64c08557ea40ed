//===- ForkedDistributor.cpp - A stand-in for libUltoDist.so --------------===//
//
// EarlyDistributorTest forks into this library: its entry copies what
// arrives on the descriptors (the command's, then the checks') to the file
// $ULTO_TEST_RECEIVED names, after a line saying it ran, as the test's
// `ulto` script does after its own.
//
//===----------------------------------------------------------------------===//

#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <unistd.h>

extern "C" int ultoDistAwaitCommand(int FD, int Checks) {
  FILE *Out = fopen(getenv("ULTO_TEST_RECEIVED"), "w");
  if (!Out)
    return 1;
  fprintf(Out, "library %d\n", FD);
  char Buffer[256];
  ssize_t Size;
  for (int From : {FD, Checks})
    while ((Size = read(From, Buffer, sizeof(Buffer))) > 0)
      fwrite(Buffer, 1, Size, Out);
  fclose(Out);
  return 0;
}
