package config_test

import (
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/config"
	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/submit"
	"github.com/streamops/streamops/internal/sweep"
)

// TestDocsAreGenerated: docs/configuration.md is what the structs say.
func TestDocsAreGenerated(t *testing.T) {
	committed, err := os.ReadFile("../../docs/configuration.md")
	require.NoError(t, err)
	if string(committed) != config.Markdown() {
		t.Fatal("docs/configuration.md differs from the structs of internal/config: run `make docs` " +
			"(go run ./internal/cmd/configdoc > docs/configuration.md) and commit it")
	}
}

// TestDefaults: with nothing set every program gets the defaults the
// domain packages have, so envDefault and the constants cannot drift.
func TestDefaults(t *testing.T) {
	api, err := config.Parse[config.API](nil)
	require.NoError(t, err)
	assert.Equal(t, "streamops", api.Store.Database)
	assert.Equal(t, store.DefaultOperationTimeout, api.Store.OperationTimeout.Duration())
	assert.Equal(t, store.DefaultRetention, api.Store.EventsTTL.Duration())
	assert.Equal(t, store.DefaultRetention, api.Store.WebhookEventsTTL.Duration())
	assert.Equal(t, store.Retention{Outbox: store.DefaultRetention, Workflows: store.DefaultRetention, Tasks: store.DefaultRetention,
		DeadLetters: store.DefaultRetention, ReplaySessions: store.DefaultRetention, Archive: store.DefaultArchiveRetention},
		api.Store.Retention.Store(), "every retention has its default; the archive's is finite")
	assert.Equal(t, bus.DefaultMaxMessageBytes, int(api.Producer.MaxMessageBytes))
	assert.Equal(t, bus.DefaultCompression, api.Producer.Compression, "the documented default is the bus's")
	assert.Equal(t, "none", api.Kafka.Auth)
	assert.Equal(t, "info", api.Log.Level)
	assert.Equal(t, emit.DefaultMarkDelay, api.Marks())
	assert.False(t, api.Lambda.OnLambda())
	assert.False(t, bool(api.Store.AllowEmbedded))
	assert.Equal(t, config.Limits{MaxSteps: submit.DefaultMaxSteps, MaxNameBytes: submit.DefaultMaxNameBytes,
		MaxInputBytes: submit.DefaultMaxInputBytes, MaxTaskDataBytes: submit.DefaultMaxTaskDataBytes}, api.Limits)

	sw, err := config.Parse[config.RetrySweeper](nil)
	require.NoError(t, err)
	assert.Equal(t, sweep.DefaultStallAfter, sw.Sweep.StallAfter.Duration())
	assert.Equal(t, sweep.DefaultGiveUpAfter, sw.Sweep.GiveUpAfter.Duration())
	assert.Zero(t, sw.Marks())

	wh, err := config.Parse[config.Webhook](nil)
	require.NoError(t, err)
	assert.Equal(t, "streamops/webhook/", wh.WebhookSecrets.Prefix)
	relay, err := config.Parse[config.OutboxRelay](nil)
	require.NoError(t, err)
	assert.Equal(t, "streamops/partner/", relay.PartnerSecrets.Prefix)
	assert.Zero(t, relay.Schedule.Period)
	assert.Equal(t, outbox.DefaultMaxHold, relay.Backpressure.MaxHold.Duration())
	assert.Equal(t, outbox.DefaultDisableAfter, relay.Backpressure.DisableAfter.Duration())

	local, err := config.Parse[config.Local](map[string]string{"STREAMOPS_DATA_DIR": ""})
	require.NoError(t, err)
	assert.Equal(t, ".streamops", local.DataDir, "empty is the default")
	assert.Equal(t, "127.0.0.1:8080", local.HTTPAddr)
	assert.Equal(t, "127.0.0.1:9092", local.KafkaAddr)
	assert.Equal(t, 10*time.Second, local.ScheduleInterval.Duration())
	assert.Zero(t, local.StoreFlushInterval)
}

// TestValues: what each kind of value reads as.
func TestValues(t *testing.T) {
	cfg, err := config.Parse[config.API](map[string]string{
		"MONGODB_URI": "mongodb://h/", "STREAMOPS_STORE_OPERATION_TIMEOUT": "250ms", "STREAMOPS_EVENTS_TTL": " 30d ",
		"STREAMOPS_WEBHOOK_EVENTS_TTL": "36h30m", "KAFKA_MAX_MESSAGE_BYTES": "2097152", "STREAMOPS_MARK_DELAY": "0",
		"STREAMOPS_ALLOW_EMBEDDED_STORE": "true", "AWS_LAMBDA_FUNCTION_NAME": "streamops-api", "STREAMOPS_MAX_WORKFLOW_STEPS": "5",
		"MONGODB_TLS_CA_FILE": "/opt/ca.pem", "STREAMOPS_OUTBOX_TTL": "7d", "STREAMOPS_WORKFLOWS_TTL": "30d", "STREAMOPS_TASKS_TTL": "48h",
		"STREAMOPS_DEAD_LETTERS_TTL": "180d", "STREAMOPS_REPLAY_SESSIONS_TTL": "1h", "STREAMOPS_ARCHIVE_TTL": "permanent",
		"STREAMOPS_KAFKA_COMPRESSION": "LZ4",
	})
	require.NoError(t, err)
	assert.Equal(t, "mongodb://h/", cfg.Store.URI)
	assert.Equal(t, 250*time.Millisecond, cfg.Store.OperationTimeout.Duration())
	assert.Equal(t, 30*24*time.Hour, cfg.Store.EventsTTL.Duration())
	assert.Equal(t, 36*time.Hour+30*time.Minute, cfg.Store.WebhookEventsTTL.Duration())
	assert.Equal(t, 2097152, int(cfg.Producer.MaxMessageBytes))
	assert.Equal(t, bus.CompressionLz4, cfg.Producer.Compression, "a codec name in any case")
	assert.Zero(t, cfg.Marks())
	assert.True(t, bool(cfg.Store.AllowEmbedded))
	assert.True(t, cfg.Lambda.OnLambda())
	assert.EqualValues(t, 5, cfg.Limits.MaxSteps)
	assert.Equal(t, "/opt/ca.pem", cfg.Store.TLSCAFile)
	assert.Equal(t, store.Retention{Outbox: 7 * 24 * time.Hour, Workflows: 30 * 24 * time.Hour, Tasks: 48 * time.Hour,
		DeadLetters: 180 * 24 * time.Hour, ReplaySessions: time.Hour, Archive: store.Permanent}, cfg.Store.Retention.Store())

	for _, v := range []string{"1", "TRUE", "yes"} {
		cfg, err := config.Parse[config.API](map[string]string{"STREAMOPS_ALLOW_EMBEDDED_STORE": v})
		require.NoError(t, err)
		assert.False(t, bool(cfg.Store.AllowEmbedded), "only the exact value true opts in, not %q", v)
	}
}

// TestRetention: both retention variables take days or a Go duration of
// at least an hour.
func TestRetention(t *testing.T) {
	tests := []struct {
		value   string
		want    time.Duration
		wantErr string
	}{
		{"90d", 90 * 24 * time.Hour, ""},
		{"2160h", 90 * 24 * time.Hour, ""},
		{"1d", 24 * time.Hour, ""},
		{" 30d ", 30 * 24 * time.Hour, ""},
		{"1h", time.Hour, ""},
		{"90", 0, "such as 90d or 2160h"},
		{"90s", 0, "at least 1h0m0s"},
		{"0d", 0, "at least"},
		{"-1d", 0, "at least"},
		{"-5h", 0, "at least"},
		{"1.5d", 0, "not a whole number of days"},
		{"d", 0, "not a whole number of days"},
		{"ninety days", 0, "such as 90d"},
		{"9999999999999d", 0, "too long"},
		{"30000d", 0, "at most 24855 days"},
		{"permanent", 0, "such as 90d"}, // the archive's only
	}
	for _, tc := range tests {
		t.Run(tc.value, func(t *testing.T) {
			got, err := config.ParseRetention(tc.value)
			if tc.wantErr != "" {
				assert.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestArchivePeriod: the archive's retention is a retention period or
// permanent, which keeps it forever.
func TestArchivePeriod(t *testing.T) {
	for _, tc := range []struct {
		value   string
		want    time.Duration
		wantErr string
	}{
		{"365d", 365 * 24 * time.Hour, ""},
		{"permanent", store.Permanent, ""},
		{" Permanent ", store.Permanent, ""},
		{"0", 0, "or permanent"},
		{"forever", 0, "or permanent"},
	} {
		t.Run(tc.value, func(t *testing.T) {
			var got config.ArchivePeriod
			err := got.UnmarshalText([]byte(tc.value))
			if tc.wantErr != "" {
				assert.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got.Duration())
		})
	}
}

// TestInvalidValuesNameTheVariable: every variable that can be invalid,
// in every program that reads it, fails with an error naming the variable
// and the value.
func TestInvalidValuesNameTheVariable(t *testing.T) {
	bad := map[string][]string{
		"STREAMOPS_STORE_OPERATION_TIMEOUT":  {"5", "0s", "-1s", "soon"},
		"STREAMOPS_EVENTS_TTL":               {"90", "90s"},
		"STREAMOPS_WEBHOOK_EVENTS_TTL":       {"90", "1.5d"},
		"STREAMOPS_OUTBOX_TTL":               {"90", "permanent"},
		"STREAMOPS_WORKFLOWS_TTL":            {"30m"},
		"STREAMOPS_TASKS_TTL":                {"0"},
		"STREAMOPS_DEAD_LETTERS_TTL":         {"-1d"},
		"STREAMOPS_REPLAY_SESSIONS_TTL":      {"soon"},
		"STREAMOPS_ARCHIVE_TTL":              {"forever", "0", "90s"},
		"KAFKA_MAX_MESSAGE_BYTES":            {"1MB", "1.5"},
		"STREAMOPS_KAFKA_COMPRESSION":        {"brotli", "zstd:3"},
		"STREAMOPS_MARK_DELAY":               {"soon", "-1s"},
		"STREAMOPS_MAX_WORKFLOW_STEPS":       {"many", "0", "-3"},
		"STREAMOPS_MAX_WORKFLOW_NAME_BYTES":  {"x"},
		"STREAMOPS_MAX_WORKFLOW_INPUT_BYTES": {"0"},
		"STREAMOPS_MAX_TASK_DATA_BYTES":      {"0"},
		"STREAMOPS_SCHEDULE_PERIOD":          {"often", "-1m"},
		"STREAMOPS_SWEEP_STALL_AFTER":        {"soon", "-1m"},
		"STREAMOPS_SWEEP_GIVE_UP_AFTER":      {"10"},
		"STREAMOPS_SCHEDULE_INTERVAL":        {"often", "-1s"},
		"STREAMOPS_STORE_FLUSH_INTERVAL":     {"x"},
		"GOGC":                               {"-1", "2x", "on"},
		"STREAMOPS_TRACE_SAMPLE_RATIO":       {"NaN", "-0.1", "1.5", "5%", "abc"},
	}
	tried := map[string]bool{}
	for _, p := range config.Programs() {
		names := map[string]bool{}
		for _, v := range config.Vars(p.Type) {
			names[v.Name] = true
		}
		for name, values := range bad {
			if !names[name] {
				continue
			}
			tried[name] = true
			for _, value := range values {
				t.Run(p.Name+"/"+name+"="+value, func(t *testing.T) {
					err := config.ParseInto(reflect.New(p.Type).Interface(), map[string]string{name: value})
					require.Error(t, err)
					assert.Contains(t, err.Error(), name+"=")
					assert.Contains(t, err.Error(), value)
				})
			}
		}
	}
	for name := range bad {
		assert.True(t, tried[name], "no program reads %s", name)
	}
	t.Run("several at once", func(t *testing.T) {
		_, err := config.Parse[config.Local](map[string]string{"STREAMOPS_SCHEDULE_INTERVAL": "often", "STREAMOPS_EVENTS_TTL": "90"})
		assert.ErrorContains(t, err, "STREAMOPS_SCHEDULE_INTERVAL")
		assert.ErrorContains(t, err, "STREAMOPS_EVENTS_TTL")
	})
}

// TestEveryFieldIsNamedOnceAndDescribed: an error is mapped to its
// variable by the field's name, so the names a program parses are unique;
// and every variable has a description for the docs.
func TestEveryFieldIsNamedOnceAndDescribed(t *testing.T) {
	for _, p := range config.Programs() {
		fields := map[string]string{}
		var walk func(reflect.Type)
		walk = func(st reflect.Type) {
			for i := range st.NumField() {
				f := st.Field(i)
				name := f.Tag.Get("env")
				if name == "" && f.Type.Kind() == reflect.Struct {
					walk(f.Type)
					continue
				}
				if name == "-" {
					continue
				}
				if other, ok := fields[f.Name]; ok && other != name {
					assert.Failf(t, "field name used twice", "%s: field %s reads %s and %s", p.Name, f.Name, other, name)
				}
				fields[f.Name] = name
			}
		}
		walk(p.Type)
		for _, v := range config.Vars(p.Type) {
			assert.NotEmpty(t, v.Desc, "%s: %s has no desc", p.Name, v.Name)
		}
	}
}
