package loadprobe

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
)

// CPU is the CPU time the process has used so far (all that GOMAXPROCS
// offered but the idle time) and the garbage collector's part of it
// (runtime/metrics' estimates), read twice to tell how much of a
// stretch's CPU the collector took.
type CPU struct {
	Busy, GC float64
}

// ReadCPU reads the process's CPU time so far.
func ReadCPU() CPU {
	s := []metrics.Sample{
		{Name: "/cpu/classes/total:cpu-seconds"},
		{Name: "/cpu/classes/idle:cpu-seconds"},
		{Name: "/cpu/classes/gc/total:cpu-seconds"},
	}
	metrics.Read(s)
	f := func(i int) float64 {
		if s[i].Value.Kind() != metrics.KindFloat64 {
			return 0
		}
		return s[i].Value.Float64()
	}
	return CPU{Busy: f(0) - f(1), GC: f(2)}
}

// GCShare is the collector's share of the CPU spent since an earlier
// reading, 0 when none was spent.
func (c CPU) GCShare(since CPU) float64 {
	busy := c.Busy - since.Busy
	if busy <= 0 {
		return 0
	}
	return (c.GC - since.GC) / busy
}

// Heap is what the collector holds live: read right after a collection
// (runtime.GC), it is what every later cycle marks again.
type Heap struct {
	Bytes   uint64
	Objects uint64
}

// ReadHeap collects the heap and reads what stayed live.
func ReadHeap() Heap {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return Heap{Bytes: m.HeapAlloc, Objects: m.HeapObjects}
}

// RSS is this process's resident set size in bytes (Linux's
// /proc/self/status VmRSS); 0 where that is not readable. The local
// stack runs in the process that measures it, so it is the stack's.
func RSS() int64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		if rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmRSS:")); ok {
			f := bytes.Fields(rest)
			if len(f) > 0 {
				kb, _ := strconv.ParseInt(string(f[0]), 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

// DirSize is the bytes of the regular files under dir: the local
// stack's data on disk (the embedded store's file and journal, the
// broker's log). A file removed while it walks is skipped.
func DirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			n += fi.Size()
		}
		return nil
	})
	return n
}
