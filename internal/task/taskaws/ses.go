package taskaws

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sesv2/types"

	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/task"
)

// SESAPI is the part of the SES v2 client SESMailer uses; *sesv2.Client
// implements it.
type SESAPI interface {
	SendEmail(ctx context.Context, in *sesv2.SendEmailInput, opts ...func(*sesv2.Options)) (*sesv2.SendEmailOutput, error)
}

// tagUnsafe is what an SES message tag value may not contain.
var tagUnsafe = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// SESMailer sends email through Amazon SES v2.
type SESMailer struct {
	Client SESAPI
	// From is the verified sender identity. Required.
	From string
	// ConfigurationSet, when set, names the SES configuration set (event
	// publishing, suppression).
	ConfigurationSet string
}

// Send sends a plain-text message. SES refusing the message (rejected,
// unverified sender, bad request) is permanent; throttling and service
// errors are retryable.
func (m SESMailer) Send(ctx context.Context, e task.Email) (string, error) {
	in := &sesv2.SendEmailInput{
		FromEmailAddress: aws.String(m.From),
		Destination:      &types.Destination{ToAddresses: []string{e.To}},
		Content: &types.EmailContent{Simple: &types.Message{
			Subject: &types.Content{Data: aws.String(e.Subject), Charset: aws.String("UTF-8")},
			Body:    &types.Body{Text: &types.Content{Data: aws.String(e.Text), Charset: aws.String("UTF-8")}},
		}},
		EmailTags: []types.MessageTag{{Name: aws.String("taskId"), Value: aws.String(tagUnsafe.ReplaceAllString(e.ID, "_"))}},
	}
	if m.ConfigurationSet != "" {
		in.ConfigurationSetName = aws.String(m.ConfigurationSet)
	}
	out, err := m.Client.SendEmail(ctx, in)
	if err != nil {
		return "", classifySES(err)
	}
	return aws.ToString(out.MessageId), nil
}

func classifySES(err error) error {
	var (
		rejected   *types.MessageRejected
		unverified *types.MailFromDomainNotVerifiedException
		bad        *types.BadRequestException
		notFound   *types.NotFoundException
	)
	switch {
	case errors.As(err, &rejected), errors.As(err, &unverified), errors.As(err, &bad), errors.As(err, &notFound):
		return &fault.Error{Code: task.CodeEmail, Message: fmt.Sprintf("SES refused the message: %v", err), Err: err}
	}
	return fault.Retryable(task.CodeEmail, err)
}
