//===- ServedTargets.cpp - The targets ulto serves ------------------------===//

#include "ulto/Frontend/ServedTargets.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

bool ulto::isServedTarget(const Triple &T) {
  // PlayStation's drivers turn unified LTO on and tell Sony's linkers the
  // mode themselves; ulto leaves them be.
  if (!T.isOSBinFormatELF() || T.isPS())
    return false;
  // The machines lld-22's ELF port links (lld/ELF/Target.cpp), less those
  // whose clang toolchain links with a tool of its own: AMDGPU, AVR, Hexagon
  // and MSP430.
  return T.isX86() || T.isARM() || T.isThumb() || T.isAArch64() ||
         T.isLoongArch() || T.isMIPS() || T.isPPC() || T.isRISCV() ||
         T.isSPARC64() || T.isSystemZ();
}
