// Package hugepage allocates the large arrays plagd reads at random (the
// inverted index's keys, offsets and postings, the related join's
// accumulators and heaps) so that the kernel backs them with huge pages.
//
// An index of gigabytes is read four dependent loads per chunk looked up.
// With the kernel's 4 KiB pages each of those loads also misses the TLB
// once an array outgrows a few megabytes, and the page walk that follows
// misses the cache in turn; with 2 MiB pages the TLB covers a gigabyte.
// Linux hands out such pages to memory advised as huge-page memory
// (madvise MADV_HUGEPAGE) when transparent huge pages are in "madvise"
// mode, the usual default; the Go runtime does not advise its heap itself.
// Make advises an array before anything is written to it, so the kernel
// can place huge pages as it is first written. The advice changes no value
// and may be refused: it only makes lookups cheaper. Elsewhere than Linux
// it does nothing.
package hugepage

// Make returns n zeroed elements, advised as huge-page memory when they
// span at least two huge pages (smaller arrays fit the TLB anyway).
func Make[T any](n int) []T {
	a := make([]T, n)
	Advise(a)
	return a
}
