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
