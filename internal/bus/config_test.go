package bus

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/fault"
)

func TestConfigValidateNamesTheBadField(t *testing.T) {
	ok := Config{Brokers: []string{"127.0.0.1:9092"}}
	tests := []struct {
		name   string
		mutate func(*Config)
		field  string
	}{
		{"brokers are required", func(c *Config) { c.Brokers = nil }, "Brokers"},
		{"a broker needs a port", func(c *Config) { c.Brokers = []string{"b-1.msk:9098", "localhost"} }, "Brokers[1]"},
		{"produce timeout below kgo's floor", func(c *Config) { c.ProduceTimeout = 10 * time.Millisecond }, "ProduceTimeout"},
		{"negative produce timeout", func(c *Config) { c.ProduceTimeout = -time.Second }, "ProduceTimeout"},
		{"negative dial timeout", func(c *Config) { c.DialTimeout = -time.Second }, "DialTimeout"},
		{"negative linger", func(c *Config) { c.Linger = -time.Millisecond }, "Linger"},
		{"negative max buffered records", func(c *Config) { c.MaxBufferedRecords = -1 }, "MaxBufferedRecords"},
		{"negative max buffered bytes", func(c *Config) { c.MaxBufferedBytes = -1 }, "MaxBufferedBytes"},
		{"max message bytes below 64 KiB", func(c *Config) { c.MaxMessageBytes = 1000 }, "MaxMessageBytes"},
		{"max message bytes from a bad KAFKA_MAX_MESSAGE_BYTES", func(c *Config) { c.MaxMessageBytes = -1 }, "MaxMessageBytes"},
		{"replication factor below -1", func(c *Config) { c.ReplicationFactor = -2 }, "ReplicationFactor"},
		{"a codec Kafka does not define", func(c *Config) { c.Compression = "brotli" }, "Compression"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := ok
			tt.mutate(&cfg)
			err := cfg.Validate()
			require.ErrorIs(t, err, ErrInvalidConfig)
			assert.Contains(t, err.Error(), tt.field+" ")
			_, err = New(cfg)
			assert.ErrorIs(t, err, ErrInvalidConfig, "New validates too")
			assert.False(t, fault.IsRetryable(err))
		})
	}
	assert.NoError(t, ok.Validate(), "zero values mean defaults")
}

func TestNewFillsDocumentedDefaults(t *testing.T) {
	c := newTestClient(t, Config{Brokers: []string{"127.0.0.1:9092"}})
	assert.Equal(t, Config{
		Brokers:            []string{"127.0.0.1:9092"},
		ClientID:           "streamops",
		ProduceTimeout:     10 * time.Second,
		DialTimeout:        5 * time.Second,
		MaxBufferedRecords: 50_000,
		MaxBufferedBytes:   64 << 20,
		MaxMessageBytes:    1048588,
		Compression:        DefaultCompression,
	}, c.cfg)
}

func TestParseBrokersSplitsTheBootstrapString(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"127.0.0.1:9092", []string{"127.0.0.1:9092"}},
		{"b-1.streamops.kafka.us-east-1.amazonaws.com:9098, b-2.streamops.kafka.us-east-1.amazonaws.com:9098,",
			[]string{"b-1.streamops.kafka.us-east-1.amazonaws.com:9098", "b-2.streamops.kafka.us-east-1.amazonaws.com:9098"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ParseBrokers(tt.in), tt.in)
	}
}
