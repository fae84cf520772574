//go:build linux

package extract

import (
	"golang.org/x/sys/unix"

	"github.com/tetratelabs/wazero/experimental"
)

// pdfiumMemory is the allocator of PDFium's WebAssembly memory on Linux:
// anonymous mappings outside the Go heap, grown by mremap. wazero's own
// allocator keeps the memory in a Go slice and grows it by copying, so a
// file that makes PDFium take its 1 GiB (a page size of 10^20) costs
// seconds of copying and twice the memory; here growing moves no bytes,
// untouched pages cost nothing, and the memory returns to the system as
// soon as the instance is closed.
func pdfiumMemory() experimental.MemoryAllocator {
	return experimental.MemoryAllocatorFunc(func(_, max uint64) experimental.LinearMemory {
		return &mappedMemory{max: max}
	})
}

// mappedMemory is one instance's linear memory.
type mappedMemory struct {
	buf []byte
	max uint64
}

// Reallocate grows the memory to size bytes; nil when the system refuses
// (the module then sees a failed memory.grow and fails its allocation).
func (m *mappedMemory) Reallocate(size uint64) []byte {
	if size > m.max {
		return nil
	}
	if size <= uint64(len(m.buf)) {
		return m.buf[:size]
	}
	mapped := roundPages(size)
	var (
		b   []byte
		err error
	)
	if m.buf == nil {
		b, err = unix.Mmap(-1, 0, mapped, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	} else {
		b, err = unix.Mremap(m.buf[:cap(m.buf)], mapped, unix.MREMAP_MAYMOVE)
	}
	if err != nil {
		return nil
	}
	m.buf = b[:size]
	return m.buf
}

// Free unmaps the memory.
func (m *mappedMemory) Free() {
	if m.buf != nil {
		_ = unix.Munmap(m.buf[:cap(m.buf)])
		m.buf = nil
	}
}

// roundPages rounds n up to whole 64 KiB pages (and so to system pages).
func roundPages(n uint64) int {
	const page = 64 << 10
	return int((n + page - 1) / page * page)
}
