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

// ulto dist's arguments: --await-command=FD --await-checks=CHECKS, then the
// link's worker options, which the first line names.
extern "C" int ultoDistMain(int Argc, const char *const *Argv) {
  int FD, Checks;
  if (Argc < 2 || sscanf(Argv[0], "--await-command=%d", &FD) != 1 ||
      sscanf(Argv[1], "--await-checks=%d", &Checks) != 1)
    return 1;
  FILE *Out = fopen(getenv("ULTO_TEST_RECEIVED"), "w");
  if (!Out)
    return 1;
  fprintf(Out, "library %d", FD);
  for (int I = 2; I < Argc; ++I)
    fprintf(Out, " %s", Argv[I]);
  fprintf(Out, "\n");
  char Buffer[256];
  ssize_t Size;
  for (int From : {FD, Checks})
    while ((Size = read(From, Buffer, sizeof(Buffer))) > 0)
      fwrite(Buffer, 1, Size, Out);
  fclose(Out);
  return 0;
}
