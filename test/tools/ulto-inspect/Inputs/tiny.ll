target triple = "x86_64-pc-linux-gnu"
@vt = constant [1 x ptr] [ptr @f], !type !0
define i32 @f(ptr %p) #0 {
  ret i32 1
}
attributes #0 = { noinline nounwind "frame-pointer"="all" }
!0 = !{i64 0, !"_ZTS1A"}
!llvm.module.flags = !{!1, !2}
!1 = !{i32 1, !"EnableSplitLTOUnit", i32 1}
!2 = !{i32 1, !"UnifiedLTO", i32 1}
