//go:build !linux

package memstore_test

import "testing"

// cpuTime reports nothing where the thread's CPU time is not read.
func cpuTime(b *testing.B) (report func()) { return func() {} }
