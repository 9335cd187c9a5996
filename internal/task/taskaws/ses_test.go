package taskaws_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	sestypes "github.com/aws/aws-sdk-go-v2/service/sesv2/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/objects/s3bucket"
	"github.com/streamops/streamops/internal/task"
	"github.com/streamops/streamops/internal/task/taskaws"
)

func codeOf(err error) (string, bool) {
	if te, ok := errors.AsType[*fault.Error](err); ok {
		return te.Code, te.Retryable
	}
	return "", err != nil
}

type fakeSES struct {
	err error
	in  *sesv2.SendEmailInput
}

func (f *fakeSES) SendEmail(_ context.Context, in *sesv2.SendEmailInput, _ ...func(*sesv2.Options)) (*sesv2.SendEmailOutput, error) {
	f.in = in
	if f.err != nil {
		return nil, f.err
	}
	return &sesv2.SendEmailOutput{MessageId: aws.String("0100018c-ses")}, nil
}

func TestSESMailerSendsAndClassifiesRefusals(t *testing.T) {
	tests := []struct {
		name      string
		err       error
		retryable bool
	}{
		{"rejected", &sestypes.MessageRejected{Message: aws.String("Email address is not verified")}, false},
		{"sender not verified", &sestypes.MailFromDomainNotVerifiedException{}, false},
		{"throttled", &sestypes.TooManyRequestsException{}, true},
		{"network", errors.New("dial tcp: i/o timeout"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := taskaws.SESMailer{Client: &fakeSES{err: tt.err}, From: "noreply@streamops.dev"}.Send(context.Background(), task.Email{ID: "task-1", To: "a@example.com"})
			code, retryable := codeOf(err)
			assert.Equal(t, task.CodeEmail, code)
			assert.Equal(t, tt.retryable, retryable)
		})
	}
	f := &fakeSES{}
	id, err := taskaws.SESMailer{Client: f, From: "noreply@streamops.dev", ConfigurationSet: "cs"}.Send(context.Background(),
		task.Email{ID: "task-1", To: "a@example.com", Subject: "S", Text: "T"})
	require.NoError(t, err)
	assert.Equal(t, "0100018c-ses", id)
	assert.Equal(t, "noreply@streamops.dev", aws.ToString(f.in.FromEmailAddress))
	assert.Equal(t, []string{"a@example.com"}, f.in.Destination.ToAddresses)
	assert.Equal(t, "T", aws.ToString(f.in.Content.Simple.Body.Text.Data))
	assert.Equal(t, "cs", aws.ToString(f.in.ConfigurationSetName))
}

func TestBackendsAreSESAndS3WhenNamedAndFilesOtherwise(t *testing.T) {
	dir := t.TempDir()
	local, err := taskaws.Backends(task.BackendConfig{DataDir: dir})
	require.NoError(t, err)
	assert.Equal(t, task.LocalBackends(task.BackendConfig{DataDir: dir}), local)
	deployed, err := taskaws.Backends(task.BackendConfig{EmailSender: "noreply@streamops.dev", ExportBucket: "exports", OnLambda: true})
	require.NoError(t, err)
	assert.IsType(t, taskaws.SESMailer{}, deployed.Mailer)
	assert.Equal(t, "exports", deployed.Objects.(s3bucket.Bucket).Bucket)
	_, err = taskaws.Backends(task.BackendConfig{OnLambda: true})
	assert.ErrorContains(t, err, task.EnvEmailSender, "on Lambda the AWS backends are required")
}
