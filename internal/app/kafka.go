package app

import (
	"context"
	"crypto/tls"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/config"
	saslaws "github.com/twmb/franz-go/pkg/sasl/aws"

	"github.com/streamops/streamops/internal/bus"
)

// KafkaAuth applies mode (env KAFKA_AUTH) to a Kafka client configuration:
// "iam" is Amazon MSK's IAM access control (TLS on port 9098, SASL
// AWS_MSK_IAM with the function's role credentials, refreshed per
// connection); "tls" is TLS without SASL; empty or "none" is plaintext, as
// the local broker speaks.
func KafkaAuth(ctx context.Context, mode string, cfg *bus.Config) error {
	switch mode = strings.ToLower(mode); mode {
	case "", "none":
		return nil
	case "tls":
		cfg.TLS = &tls.Config{MinVersion: tls.VersionTLS12}
		return nil
	case "iam":
		awsCfg, err := config.LoadDefaultConfig(ctx)
		if err != nil {
			return fmt.Errorf("app: KAFKA_AUTH=iam: load AWS credentials: %w", err)
		}
		cfg.TLS = &tls.Config{MinVersion: tls.VersionTLS12}
		cfg.SASL = saslaws.ManagedStreamingIAM(func(ctx context.Context) (saslaws.Auth, error) {
			creds, err := awsCfg.Credentials.Retrieve(ctx)
			if err != nil {
				return saslaws.Auth{}, err
			}
			return saslaws.Auth{AccessKey: creds.AccessKeyID, SecretKey: creds.SecretAccessKey,
				SessionToken: creds.SessionToken, UserAgent: "streamops"}, nil
		})
		return nil
	default:
		return fmt.Errorf("app: KAFKA_AUTH must be iam, tls or none, got %q", mode)
	}
}
