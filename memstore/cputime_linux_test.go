package memstore_test

import (
	"runtime"
	"syscall"
	"testing"
	"unsafe"
)

// cpuTime reports, beside ns/op, the CPU time the benchmark's own thread
// spent per op (cpu-ns/op): on a shared machine the wall time of the same
// code swings several times with the other work running, its CPU time
// much less. Call the returned func after the loop.
func cpuTime(b *testing.B) (report func()) {
	runtime.LockOSThread()
	start := threadCPU()
	return func() {
		b.ReportMetric(float64(threadCPU()-start)/float64(b.N), "cpu-ns/op")
		runtime.UnlockOSThread()
	}
}

// threadCPU is the calling thread's CPU time in nanoseconds
// (CLOCK_THREAD_CPUTIME_ID).
func threadCPU() int64 {
	const clockThreadCPUTimeID = 3
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano()
}
