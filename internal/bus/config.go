package bus

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"

	"github.com/streamops/streamops/internal/eventlog"
	"github.com/streamops/streamops/internal/fault"
)

// Config configures a Client. The zero value of every field except Brokers
// means "use the default"; New fills defaults and validates before it dials.
type Config struct {
	// Brokers are the seed brokers as host:port. Required: there is no
	// sensible default, and a typo should fail at start, not at first
	// publish. The MSK bootstrap string splits on commas into this.
	Brokers []string

	// ClientID is the Kafka client.id, shown in broker logs and quotas.
	// Default "streamops", so broker-side metrics group our functions.
	ClientID string

	// ProduceTimeout bounds one Publish call: events not acknowledged by then
	// are reported with ErrUnacknowledged (retryable) instead of holding a
	// Lambda until its own timeout. It is also the broker-side produce
	// (acks=all) timeout, so it must be at least 100ms (kgo's floor).
	// Default 10s: well inside a Lambda's usual 30s, and kgo's own default.
	ProduceTimeout time.Duration

	// DialTimeout bounds opening one broker connection. Default 5s: long
	// enough for a TLS handshake across AZs, short enough that an unreachable
	// cluster is reported well before ProduceTimeout twice over.
	DialTimeout time.Duration

	// Linger is how long a partition waits for more records before sending
	// a batch. Default 0: Publish hands records to kgo as it encodes them,
	// so the first batches are on the wire while the rest are encoded, and
	// later records still batch up behind requests in flight; lingering
	// only delays that. When set, Publish sends its own batches as soon as
	// it has handed over every record instead of waiting out the linger.
	Linger time.Duration

	// MaxBufferedRecords caps records buffered in the client; Produce blocks
	// (bounded by ProduceTimeout) when it is reached. Default 50,000, kgo's
	// default: several full Publish batches.
	MaxBufferedRecords int

	// MaxBufferedBytes caps bytes buffered in the client. Default 64 MiB, so a
	// burst cannot push a small Lambda into an out-of-memory kill; a single
	// record larger than this fails with kerr.MessageTooLarge.
	MaxBufferedBytes int

	// MaxMessageBytes is the largest record batch the brokers accept
	// (message.max.bytes; KAFKA_MAX_MESSAGE_BYTES in the functions). The
	// producer refuses larger records itself (kerr.MessageTooLarge, never
	// retryable), and RecordSize against it is how writers check, before
	// they store anything, that an event can ever be published. Default
	// DefaultMaxMessageBytes, Kafka's and MSK's default (1048588); set it to
	// the cluster's value when the cluster differs.
	MaxMessageBytes int

	// ReplicationFactor is the replication factor EnsureTopics creates topics
	// with. Default 0 means min(3, live brokers): three copies on MSK, one on
	// a laptop broker. -1 asks the broker for its default.replication.factor.
	ReplicationFactor int16

	// Partitions are the partition counts EnsureTopics creates and grows
	// the topics to (STREAMOPS_KAFKA_PARTITIONS). Default: every topic at
	// DefaultPartitions, seed 003's 3.
	Partitions PartitionCounts

	// Compression is the codec of every record batch the producer sends
	// (STREAMOPS_KAFKA_COMPRESSION). Default DefaultCompression, chosen by
	// BenchmarkCompression: MSK bytes are the largest line of the cost
	// model (docs/capacity.md), and consumers decompress transparently.
	Compression Compression

	// TLS, when set, dials brokers over TLS (MSK port 9094/9096/9098).
	// Default nil: plaintext, as the local broker speaks.
	TLS *tls.Config

	// SASL, when set, authenticates every connection (SCRAM or MSK IAM via
	// franz-go's sasl/aws). Default nil: no authentication.
	SASL sasl.Mechanism

	// Logger receives seed 003's "Event published" line (package
	// eventlog) of every event Publish and PublishTo got acknowledged,
	// with its partition and offset. Default nil: no lines, so a client
	// built by a tool or a test stays quiet; the functions pass theirs.
	Logger *slog.Logger

	// EventLog is the share of events whose line Logger receives
	// (STREAMOPS_EVENT_LOG_SAMPLE). Default: every event's.
	EventLog eventlog.Sampling
}

// Defaults used by setDefaults; see the Config field comments for why.
const (
	DefaultClientID           = "streamops"
	DefaultProduceTimeout     = 10 * time.Second
	DefaultDialTimeout        = 5 * time.Second
	DefaultMaxBufferedRecords = 50_000
	DefaultMaxBufferedBytes   = 64 << 20
	// DefaultMaxMessageBytes is Kafka's and Amazon MSK's default
	// message.max.bytes (and kfake's).
	DefaultMaxMessageBytes = 1048588
)

// minMaxMessageBytes keeps MaxMessageBytes above the largest envelope the
// platform makes without a client's payload in it.
const minMaxMessageBytes = 64 << 10

// minProduceTimeout is the smallest produce request timeout kgo accepts.
const minProduceTimeout = 100 * time.Millisecond

// ErrInvalidConfig is wrapped by every Config.Validate error.
var ErrInvalidConfig error = &fault.Error{Message: "bus: invalid config"}

// ParseBrokers splits a comma-separated broker list (KAFKA_BROKERS, Lambda's
// bootstrapServers) into host:port entries, dropping blanks.
func ParseBrokers(s string) []string {
	var out []string
	for _, b := range strings.Split(s, ",") {
		if b = strings.TrimSpace(b); b != "" {
			out = append(out, b)
		}
	}
	return out
}

func (c *Config) setDefaults() {
	if c.ClientID == "" {
		c.ClientID = DefaultClientID
	}
	if c.ProduceTimeout == 0 {
		c.ProduceTimeout = DefaultProduceTimeout
	}
	if c.DialTimeout == 0 {
		c.DialTimeout = DefaultDialTimeout
	}
	if c.MaxBufferedRecords == 0 {
		c.MaxBufferedRecords = DefaultMaxBufferedRecords
	}
	if c.MaxBufferedBytes == 0 {
		c.MaxBufferedBytes = DefaultMaxBufferedBytes
	}
	if c.MaxMessageBytes == 0 {
		c.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if c.Compression == "" {
		c.Compression = DefaultCompression
	}
}

// Validate reports the first invalid field by name. Zero values are valid
// (they mean "default"); New fills them before validating.
func (c Config) Validate() error {
	bad := func(field, format string, args ...any) error {
		return fmt.Errorf("%w: %s %s", ErrInvalidConfig, field, fmt.Sprintf(format, args...))
	}
	if len(c.Brokers) == 0 {
		return bad("Brokers", "is required (host:port, e.g. 127.0.0.1:9092)")
	}
	for i, b := range c.Brokers {
		if colon := strings.LastIndexByte(b, ':'); colon <= 0 || colon == len(b)-1 {
			return bad(fmt.Sprintf("Brokers[%d]", i), "%q is not host:port", b)
		}
	}
	switch {
	case c.ProduceTimeout != 0 && c.ProduceTimeout < minProduceTimeout:
		return bad("ProduceTimeout", "must be at least %s (or 0 for the default), got %s", minProduceTimeout, c.ProduceTimeout)
	case c.DialTimeout < 0:
		return bad("DialTimeout", "must not be negative, got %s", c.DialTimeout)
	case c.Linger < 0:
		return bad("Linger", "must not be negative, got %s", c.Linger)
	case c.MaxBufferedRecords < 0:
		return bad("MaxBufferedRecords", "must not be negative, got %d", c.MaxBufferedRecords)
	case c.MaxBufferedBytes < 0:
		return bad("MaxBufferedBytes", "must not be negative, got %d", c.MaxBufferedBytes)
	case c.MaxMessageBytes != 0 && c.MaxMessageBytes < minMaxMessageBytes:
		return bad("MaxMessageBytes", "must be at least %d (or 0 for the default), got %d", minMaxMessageBytes, c.MaxMessageBytes)
	case c.ReplicationFactor < -1:
		return bad("ReplicationFactor", "must be -1 (broker default), 0 (auto) or positive, got %d", c.ReplicationFactor)
	}
	if err := c.Compression.Validate(); err != nil {
		return bad("Compression", "%v", err)
	}
	if err := c.Partitions.Validate(); err != nil {
		return bad("Partitions", "%v", err)
	}
	return nil
}

// ConnectOpts are the options that reach the brokers: seed brokers, dial
// timeout, TLS and SASL. The producer uses them, and so does any other
// client of the same cluster (the local stack's consumers).
func (c Config) ConnectOpts() []kgo.Opt {
	opts := []kgo.Opt{kgo.SeedBrokers(c.Brokers...)}
	if c.DialTimeout > 0 {
		opts = append(opts, kgo.DialTimeout(c.DialTimeout))
	}
	if c.TLS != nil {
		opts = append(opts, kgo.DialTLSConfig(c.TLS))
	}
	if c.SASL != nil {
		opts = append(opts, kgo.SASL(c.SASL))
	}
	return opts
}
