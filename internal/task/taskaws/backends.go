package taskaws

import (
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"

	"github.com/streamops/streamops/internal/awsenv"
	"github.com/streamops/streamops/internal/objects/s3bucket"
	"github.com/streamops/streamops/internal/task"
)

// Backends are the backends cfg chooses: SES v2 when it names a sender,
// the S3 bucket when it names one, the local files of task.LocalBackends
// otherwise. On Lambda both AWS backends are required (cfg.Validate). The
// AWS region and credentials are the environment's (awsenv).
func Backends(cfg task.BackendConfig) (task.Backends, error) {
	if err := cfg.Validate(); err != nil {
		return task.Backends{}, err
	}
	b := task.LocalBackends(cfg)
	if cfg.EmailSender != "" {
		b.Mailer = SESMailer{Client: sesv2.NewFromConfig(awsenv.Config()), From: cfg.EmailSender, ConfigurationSet: cfg.SESConfigurationSet}
	}
	if cfg.ExportBucket != "" {
		b.Objects = s3bucket.Bucket{Client: s3.NewFromConfig(awsenv.Config()), Bucket: cfg.ExportBucket}
	}
	return b, nil
}
