//go:build !linux

package sandbox

import (
	"errors"
	"os"
	"syscall"
)

// supported: elsewhere than Linux a Pool extracts in-process (Config.Isolate
// is ignored), under the same concurrency cap.
const supported = false

var errUnsupported = errors.New("extraction in a child process needs Linux")

func sysProcAttr() *syscall.SysProcAttr            { return nil }
func killGroup(pid int)                            {}
func rssBytes(pid int) (int64, error)              { return 0, errUnsupported }
func takePipes() (in, out *os.File, err error)     { return nil, nil, errUnsupported }
func limitSelf(mem int64, addressSpace bool) error { return errUnsupported }
func onCPULimit(f func())                          {}
func setCPULimit(seconds int64)                    {}
