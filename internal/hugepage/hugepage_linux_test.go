package hugepage

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestMake_HugePages: a large index array is backed by huge pages
// where the kernel offers them on request (transparent huge pages in
// "madvise" or "always" mode), which is what keeps a lookup in an index of
// gigabytes to one cache miss per array instead of a TLB miss and a page
// walk besides (the package doc).
func TestMake_HugePages(t *testing.T) {
	enabled, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || bytes.Contains(enabled, []byte("[never]")) {
		t.Skip("no transparent huge pages on this kernel")
	}
	if defrag, _ := os.ReadFile("/sys/kernel/mm/transparent_hugepage/defrag"); bytes.Contains(defrag, []byte("[never]")) {
		t.Skip("huge pages only when free ones happen to be there (defrag never)")
	}
	a := Make[uint32](32 << 20 / 4) // 32 MiB: at least 15 whole huge pages
	for i := range a {
		a[i] = uint32(i)
	}
	// The advice splits the heap's mapping: the advised part, holding the
	// array's middle, is a mapping of its own.
	huge := anonHugeKB(t, uintptr(unsafe.Pointer(&a[len(a)/2])))
	if huge == 0 {
		t.Fatalf("no huge page backs a 32 MiB array advised as huge-page memory")
	}
	t.Logf("%d KiB of the array's mapping in huge pages", huge)
	if a[len(a)-1] != uint32(len(a)-1) {
		t.Fatal("the array lost its values")
	}
}

// anonHugeKB reads /proc/self/smaps: AnonHugePages of the mapping holding
// addr.
func anonHugeKB(t *testing.T, addr uintptr) int {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		if fields := strings.Fields(line); len(fields) > 0 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			lo, hi, _ := strings.Cut(fields[0], "-")
			l, err1 := strconv.ParseUint(lo, 16, 64)
			h, err2 := strconv.ParseUint(hi, 16, 64)
			in = err1 == nil && err2 == nil && uint64(addr) >= l && uint64(addr) < h
			continue
		}
		if in && strings.HasPrefix(line, "AnonHugePages:") {
			kb, _ := strconv.Atoi(strings.Fields(line)[1])
			return kb
		}
	}
	t.Fatalf("no mapping holds %#x", addr)
	return 0
}
