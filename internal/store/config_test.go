package store_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/streamops/streamops/internal/store"
)

func TestOperationTimeoutFromEnv(t *testing.T) {
	tests := []struct {
		env     string
		want    time.Duration
		wantErr bool
	}{
		{"", 0, false}, // Open's default, store.DefaultOperationTimeout
		{"2s", 2 * time.Second, false},
		{"250ms", 250 * time.Millisecond, false},
		{"5", 0, true},
		{"-1s", 0, true},
		{"0s", 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.env, func(t *testing.T) {
			t.Setenv("STREAMOPS_STORE_OPERATION_TIMEOUT", tc.env)
			cfg, err := store.ConfigFromEnv()
			if tc.wantErr {
				assert.ErrorContains(t, err, "STREAMOPS_STORE_OPERATION_TIMEOUT")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, cfg.OperationTimeout)
		})
	}
}

// TestRetentionFromEnv: both retention variables take days or a Go
// duration of at least an hour; anything else is refused at start with an
// error naming the variable.
func TestRetentionFromEnv(t *testing.T) {
	tests := []struct {
		env     string
		want    time.Duration
		wantErr string
	}{
		{"", 0, ""}, // Open's default, store.DefaultRetention
		{"90d", 90 * 24 * time.Hour, ""},
		{"2160h", 90 * 24 * time.Hour, ""},
		{"1d", 24 * time.Hour, ""},
		{" 30d ", 30 * 24 * time.Hour, ""},
		{"36h30m", 36*time.Hour + 30*time.Minute, ""},
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
	}
	for _, name := range []string{store.EnvEventsTTL, store.EnvWebhookEventsTTL} {
		for _, tc := range tests {
			t.Run(name+"="+tc.env, func(t *testing.T) {
				t.Setenv(store.EnvEventsTTL, "")
				t.Setenv(store.EnvWebhookEventsTTL, "")
				t.Setenv(name, tc.env)
				cfg, err := store.ConfigFromEnv()
				if tc.wantErr != "" {
					require.Error(t, err)
					assert.Contains(t, err.Error(), name, "the error names the variable")
					assert.Contains(t, err.Error(), tc.wantErr)
					return
				}
				require.NoError(t, err)
				got := map[string]time.Duration{store.EnvEventsTTL: cfg.EventTTL, store.EnvWebhookEventsTTL: cfg.WebhookEventTTL}
				assert.Equal(t, tc.want, got[name])
				for other, d := range got {
					if other != name {
						assert.Zero(t, d, "%s is left to its default", other)
					}
				}
			})
		}
	}
}

func TestNegativeOperationTimeoutIsRefused(t *testing.T) {
	_, err := store.Open(context.Background(), store.Config{OperationTimeout: -time.Second})
	assert.ErrorContains(t, err, "OperationTimeout")
}

// TestTLSCAFileReachesTheDriver: MONGODB_TLS_CA_FILE becomes the URI's
// tlsCAFile, which the official driver (the reference) loads into its TLS
// roots; a URI's own tlsCAFile wins.
func TestTLSCAFileReachesTheDriver(t *testing.T) {
	ca := writeTestCA(t)
	tests := []struct{ name, uri, want string }{
		{"DocumentDB URI with options", "mongodb://u:p@docdb.example:27017/?tls=true&replicaSet=rs0", "mongodb://u:p@docdb.example:27017/?tls=true&replicaSet=rs0&tlsCAFile=" + url.QueryEscape(ca)},
		{"no options", "mongodb://docdb.example:27017", "mongodb://docdb.example:27017/?tlsCAFile=" + url.QueryEscape(ca)},
		{"database, no options", "mongodb://docdb.example:27017/streamops", "mongodb://docdb.example:27017/streamops?tlsCAFile=" + url.QueryEscape(ca)},
		{"the URI's own file wins", "mongodb://docdb.example:27017/?tlsCAFile=/etc/own.pem", "mongodb://docdb.example:27017/?tlsCAFile=/etc/own.pem"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := store.WithTLSCAFile(tc.uri, ca)
			assert.Equal(t, tc.want, got)
			if strings.Contains(tc.uri, "own.pem") {
				return
			}
			opts := options.Client().ApplyURI(got)
			require.NoError(t, opts.Validate())
			require.NotNil(t, opts.TLSConfig, "the driver dials TLS")
			require.NotNil(t, opts.TLSConfig.RootCAs, "with the bundle as its roots")
		})
	}
	assert.Equal(t, "mongodb://h:27017/?tls=true", store.WithTLSCAFile("mongodb://h:27017/?tls=true", ""), "no file: the URI as it is")

	t.Setenv("MONGODB_TLS_CA_FILE", ca)
	cfg, err := store.ConfigFromEnv()
	require.NoError(t, err)
	assert.Equal(t, ca, cfg.TLSCAFile)
}

// writeTestCA writes a self-signed CA certificate as PEM and returns its path.
func writeTestCA(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "global-bundle.pem")
	require.NoError(t, os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	return path
}
