package bus

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Compression is the codec the producer compresses record batches with
// (STREAMOPS_KAFKA_COMPRESSION). Every codec Kafka defines is accepted;
// Amazon MSK stores a batch as the producer compressed it, and Lambda's
// Kafka event source hands the functions decompressed records.
type Compression string

// The codecs, by their Kafka names.
const (
	CompressionNone   Compression = "none"
	CompressionLz4    Compression = "lz4"
	CompressionZstd   Compression = "zstd"
	CompressionSnappy Compression = "snappy"
	CompressionGzip   Compression = "gzip"
)

// DefaultCompression is chosen by BenchmarkCompression (docs/performance.md,
// "Record compression"): on the platform's records it cuts MSK bytes the
// most of the fast codecs for a produce rate within a few percent of none.
const DefaultCompression = CompressionZstd

// Compressions are every codec, none first: the one list the setting,
// its tests and BenchmarkCompression read.
var Compressions = []Compression{CompressionNone, CompressionLz4, CompressionZstd, CompressionSnappy, CompressionGzip}

// ParseCompression reads a codec name (case and surrounding blanks do not
// matter); empty is DefaultCompression.
func ParseCompression(s string) (Compression, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return DefaultCompression, nil
	}
	for _, c := range Compressions {
		if string(c) == s {
			return c, nil
		}
	}
	return "", fmt.Errorf("compression %q is not one of %s", s, compressionNames())
}

// UnmarshalText parses the setting (ParseCompression), so the
// configuration reads it straight from the environment.
func (c *Compression) UnmarshalText(b []byte) error {
	v, err := ParseCompression(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// Validate refuses a name that is not one of Compressions; empty means
// DefaultCompression.
func (c Compression) Validate() error {
	if c == "" {
		return nil
	}
	_, err := ParseCompression(string(c))
	return err
}

// Codec is c as franz-go's option, for the producer and for a raw client
// that is compared with it (the benchmarks' floors). A codec alone, with
// no fallback: every broker since Kafka 2.1 (and every MSK version) reads
// all of them, so a silent fall back to none would only hide a
// misconfigured cluster.
func (c Compression) Codec() kgo.CompressionCodec {
	switch c {
	case CompressionLz4:
		return kgo.Lz4Compression()
	case CompressionZstd:
		return kgo.ZstdCompression()
	case CompressionSnappy:
		return kgo.SnappyCompression()
	case CompressionGzip:
		return kgo.GzipCompression()
	}
	return kgo.NoCompression()
}

func compressionNames() string {
	names := make([]string, len(Compressions))
	for i, c := range Compressions {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}
