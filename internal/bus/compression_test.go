package bus

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
)

func TestParseCompressionReadsEveryCodecAndRefusesOthers(t *testing.T) {
	tests := []struct {
		in   string
		want Compression
		err  string
	}{
		{"", DefaultCompression, ""},
		{"none", CompressionNone, ""},
		{"lz4", CompressionLz4, ""},
		{" ZSTD ", CompressionZstd, ""},
		{"snappy", CompressionSnappy, ""},
		{"gzip", CompressionGzip, ""},
		{"brotli", "", `"brotli" is not one of none, lz4, zstd, snappy, gzip`},
		{"zstd:3", "", `"zstd:3" is not one of`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseCompression(tt.in)
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				var c Compression
				assert.Error(t, c.UnmarshalText([]byte(tt.in)), "the setting refuses it too")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestEveryCompressionRoundTripsThroughKafka publishes a workflow's
// lifecycle with each codec to kfake, checks on the wire that the
// batches carry that codec, and consumes the records back unchanged.
func TestEveryCompressionRoundTripsThroughKafka(t *testing.T) {
	wantCodec := map[Compression]kgo.CompressionCodecType{
		CompressionNone: kgo.CodecNone, CompressionLz4: kgo.CodecLz4, CompressionZstd: kgo.CodecZstd,
		CompressionSnappy: kgo.CodecSnappy, CompressionGzip: kgo.CodecGzip,
	}
	require.Len(t, wantCodec, len(Compressions), "a codec of Compressions without its Kafka codec here")
	envs := workflowLifecycles(t, 60)
	for _, codec := range Compressions {
		t.Run(string(codec), func(t *testing.T) {
			cluster := newCluster(t, 1, events.TopicWorkflows)
			var seen []kgo.CompressionCodecType
			w := &wireCounter{keep: true}
			w.watch(cluster)
			brokers := cluster.ListenAddrs()
			from := endOffsets(t, newAdmin(t, brokers), events.TopicWorkflows)
			c := newTestClient(t, Config{Brokers: brokers, Compression: codec})
			require.NoError(t, c.Publish(testContext(t), envs...))

			got := consume(t, brokers, events.TopicWorkflows, from, len(envs))
			want := map[string]string{}
			for _, env := range envs {
				r, err := NewRecord(env, "")
				require.NoError(t, err)
				want[string(r.Value)] = string(r.Key)
			}
			for _, r := range got {
				key, ok := want[string(r.Value)]
				require.True(t, ok, "a record that was not published: %s", r.Value)
				assert.Equal(t, key, string(r.Key))
				delete(want, string(r.Value))
			}
			assert.Empty(t, want, "records not consumed")

			w.mu.Lock()
			defer w.mu.Unlock()
			require.NotEmpty(t, w.kept)
			for _, b := range w.kept {
				seen = append(seen, kgo.CompressionCodecType(binary.BigEndian.Uint16(b[batchAttrsAt:])&0x7))
			}
			for _, s := range seen {
				assert.Equal(t, wantCodec[codec], s, "every batch on the wire is %s", codec)
			}
		})
	}
}
