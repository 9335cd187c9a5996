package local

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConfigFromEnv(t *testing.T) {
	t.Setenv("STREAMOPS_DATA_DIR", "/tmp/so")
	t.Setenv("STREAMOPS_HTTP_ADDR", "127.0.0.1:9000")
	t.Setenv("KAFKA_BROKERS", "b-1:9092, b-2:9092")
	t.Setenv("STREAMOPS_SCHEDULE_INTERVAL", "2s")
	t.Setenv("STREAMOPS_ARCHIVER_INTERVAL", "10m")
	t.Setenv("STREAMOPS_STORE_FLUSH_INTERVAL", "250ms")
	t.Setenv("STREAMOPS_STORE_OPERATION_TIMEOUT", "3s")
	t.Setenv("STREAMOPS_EVENTS_TTL", "30d")
	t.Setenv("STREAMOPS_WEBHOOK_EVENTS_TTL", "2160h")
	cfg, err := ConfigFromEnv()
	require.NoError(t, err)
	assert.Equal(t, "/tmp/so", cfg.DataDir)
	assert.Equal(t, "127.0.0.1:9000", cfg.HTTPAddr)
	assert.Equal(t, []string{"b-1:9092", "b-2:9092"}, cfg.KafkaBrokers)
	assert.Equal(t, 2*time.Second, cfg.ScheduleInterval)
	assert.Equal(t, 10*time.Minute, cfg.ArchiverInterval)
	assert.Equal(t, 250*time.Millisecond, cfg.StoreFlushInterval, "a positive interval opts into background writes")
	assert.Equal(t, 3*time.Second, cfg.StoreOperationTimeout, "read as the functions read it")
	assert.Equal(t, 30*24*time.Hour, cfg.EventTTL, "read as the functions read it")
	assert.Equal(t, 90*24*time.Hour, cfg.WebhookEventTTL)

	t.Setenv("STREAMOPS_WEBHOOK_EVENTS_TTL", "90")
	_, err = ConfigFromEnv()
	assert.ErrorContains(t, err, "STREAMOPS_WEBHOOK_EVENTS_TTL")
	t.Setenv("STREAMOPS_WEBHOOK_EVENTS_TTL", "")

	t.Setenv("STREAMOPS_SCHEDULE_INTERVAL", "often")
	_, err = ConfigFromEnv()
	assert.ErrorContains(t, err, "STREAMOPS_SCHEDULE_INTERVAL")
}

func TestConfigDefaultsAndValidation(t *testing.T) {
	var cfg Config
	cfg.setDefaults()
	require.NoError(t, cfg.Validate())
	assert.Equal(t, DefaultDataDir, cfg.DataDir)
	assert.Equal(t, "127.0.0.1:8080", cfg.HTTPAddr)
	assert.Equal(t, "127.0.0.1:9092", cfg.KafkaAddr)
	assert.Equal(t, 10*time.Second, cfg.ScheduleInterval)
	assert.Zero(t, cfg.StoreFlushInterval, "the default journals every commit")
	assert.Zero(t, cfg.ArchiverInterval, "the default runs the archiver daily at 03:00 UTC, as deployed")

	tests := []struct {
		name  string
		cfg   Config
		field string
	}{
		{"http addr", Config{HTTPAddr: "8080"}, "HTTPAddr"},
		{"kafka addr", Config{KafkaAddr: "localhost"}, "KafkaAddr"},
		{"broker", Config{KafkaBrokers: []string{"b-1:9092", "b-2"}}, "KafkaBrokers[1]"},
		{"interval", Config{ScheduleInterval: -time.Second}, "ScheduleInterval"},
		{"archiver interval", Config{ArchiverInterval: -time.Minute}, "ArchiverInterval"},
		{"log level", Config{LogLevel: "loud"}, "LogLevel"},
		{"flush interval", Config{StoreFlushInterval: -time.Second}, "StoreFlushInterval"},
		{"store operation timeout", Config{StoreOperationTimeout: -time.Second}, "StoreOperationTimeout"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.ErrorContains(t, tc.cfg.Validate(), "Config."+tc.field)
		})
	}
}
