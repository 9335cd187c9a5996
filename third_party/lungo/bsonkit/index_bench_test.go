package bsonkit

import (
	"fmt"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
)

// BenchmarkIndexCommit is what a commit costs an index (StreamOps
// patch): clone it, as a transaction does, and add two documents, on an
// index of a few hundred entries and of 200,000.
func BenchmarkIndexCommit(b *testing.B) {
	for _, n := range []int{500, 200_000} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			doc := func(i int) Doc {
				return MustConvert(bson.M{"type": fmt.Sprintf("type.%d", i%17), "at": base.Add(time.Duration(i) * time.Millisecond), "id": fmt.Sprintf("%032x", i*7919)})
			}
			idx := NewIndex(false, []Column{{Path: "type"}, {Path: "at"}})
			uniq := NewIndex(true, []Column{{Path: "id"}})
			for i := range n {
				d := doc(i)
				idx.Add(d)
				uniq.Add(d)
			}
			more := make([]Doc, 2*b.N)
			for i := range more {
				more[i] = doc(n + i)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				idx, uniq = idx.Clone(), uniq.Clone()
				for _, d := range more[2*i : 2*i+2] {
					idx.Add(d)
					uniq.Add(d)
				}
			}
		})
	}
}
