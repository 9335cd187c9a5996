package local

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/internal/bus"
)

// TestKcatMurmur2RandomMatchesTheProducer pins what docs/operations.md tells kcat
// users: `kcat -X partitioner=murmur2_random` puts a key on the partition
// our producer (kgo.StickyKeyPartitioner, Kafka's murmur2) does. The
// partitions are what Debian's kcat 1.7 chose for these keys against the
// local stack's 3-partition topics; its default partitioner put "k1" on 1.
func TestKcatMurmur2RandomMatchesTheProducer(t *testing.T) {
	kcat := map[string]int32{
		"k1":  2,
		"abc": 0,
		"wf-98160bf0-0cf3-490f-bf9b-09c9c0adb944":   0,
		"task-3705b089-e1af-4657-bdab-135e643142d3": 0,
	}
	p := kgo.StickyKeyPartitioner(nil).ForTopic("tasks")
	for key, want := range kcat {
		assert.Equal(t, want, int32(p.Partition(&kgo.Record{Key: []byte(key)}, int(bus.Partitions))), key)
	}
}
