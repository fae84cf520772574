//go:build !linux

package extract

import "github.com/tetratelabs/wazero/experimental"

// pdfiumMemory is nil off Linux: wazero's own allocator (a Go slice).
func pdfiumMemory() experimental.MemoryAllocator { return nil }
