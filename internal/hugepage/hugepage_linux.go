package hugepage

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Size is a transparent huge page on amd64 and arm64 with 4 KiB base pages.
const Size = 2 << 20

// Advise asks the kernel to back the whole huge pages inside a with huge
// pages (madvise MADV_HUGEPAGE). An array smaller than two huge pages is
// left alone. A fresh large allocation is not yet backed by memory, so the
// kernel can place huge pages as the array is first written; memory in use
// already is collapsed later by khugepaged, if at all. Errors are ignored:
// a kernel without transparent huge pages keeps small pages. The advice
// splits the mapping it falls in: the advised part becomes a mapping of its
// own (/proc/self/smaps).
func Advise[T any](a []T) {
	if len(a) == 0 {
		return
	}
	size := uintptr(len(a)) * unsafe.Sizeof(a[0])
	if size < 2*Size {
		return
	}
	base := unsafe.Pointer(unsafe.SliceData(a))
	start := uintptr(base)
	lo := (start + Size - 1) &^ (Size - 1)
	hi := (start + size) &^ (Size - 1)
	if hi <= lo {
		return
	}
	_ = unix.Madvise(unsafe.Slice((*byte)(unsafe.Add(base, lo-start)), hi-lo), unix.MADV_HUGEPAGE)
}
