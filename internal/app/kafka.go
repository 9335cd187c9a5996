package app

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"strings"

	saslaws "github.com/twmb/franz-go/pkg/sasl/aws"

	"github.com/streamops/streamops/internal/awsenv"
	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/config"
)

// KafkaAuth applies mode (env KAFKA_AUTH) to a Kafka client configuration:
// "iam" is Amazon MSK's IAM access control (TLS on port 9098, SASL
// AWS_MSK_IAM with the function's role credentials, which Lambda puts in
// the environment (awsenv); a cold start without them fails); "tls" is TLS without SASL; empty or "none" is plaintext, as
// the local broker speaks.
func KafkaAuth(ctx context.Context, mode string, cfg *bus.Config) error {
	switch mode = strings.ToLower(mode); mode {
	case "", "none":
		return nil
	case "tls":
		cfg.TLS = &tls.Config{MinVersion: tls.VersionTLS12}
		return nil
	case "iam":
		creds, err := awsenv.Credentials()
		if err != nil {
			return fmt.Errorf("app: KAFKA_AUTH=iam: %w", err)
		}
		cfg.TLS = &tls.Config{MinVersion: tls.VersionTLS12}
		cfg.SASL = saslaws.ManagedStreamingIAM(func(ctx context.Context) (saslaws.Auth, error) {
			return saslaws.Auth{AccessKey: creds.AccessKeyID, SecretKey: creds.SecretAccessKey,
				SessionToken: creds.SessionToken, UserAgent: "streamops"}, nil
		})
		return nil
	default:
		return fmt.Errorf("app: KAFKA_AUTH must be iam, tls or none, got %q", mode)
	}
}

// OpenKafka builds a Kafka client from the brokers and auth of k alone,
// for a function that administers the cluster and needs no store (the
// stack's topics resource).
func OpenKafka(ctx context.Context, k config.Kafka) (*bus.Client, error) {
	cfg := bus.Config{Brokers: bus.ParseBrokers(k.Brokers)}
	if len(cfg.Brokers) == 0 {
		return nil, errors.New("app: no Kafka brokers: set KAFKA_BROKERS (comma-separated host:port)")
	}
	if err := KafkaAuth(ctx, k.Auth, &cfg); err != nil {
		return nil, err
	}
	return bus.New(cfg)
}
