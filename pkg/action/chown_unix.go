//go:build unix

package action

import (
	"os"
	"syscall"
)

// chownLike gives paths the owner of ref when this process may (it runs as
// root in the action's container). Best effort: a failure leaves files the
// runner can still read.
func chownLike(ref string, paths ...string) {
	if os.Geteuid() != 0 {
		return
	}
	fi, err := os.Stat(ref)
	if err != nil {
		return
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st.Uid == 0 {
		return
	}
	for _, p := range paths {
		_ = os.Chown(p, int(st.Uid), int(st.Gid))
	}
}
