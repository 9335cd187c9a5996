package task

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
	"github.com/streamops/streamops/internal/vault"
)

// TestTheEmailTaskOpensItsRecipientAsItSends: a recipient that came in as
// a reference is opened as the email is sent (the template sees the real
// values too); once its subject is erased there is no one to send to, a
// permanent failure.
func TestTheEmailTaskOpensItsRecipientAsItSends(t *testing.T) {
	ctx := context.Background()
	v, err := vault.NewInMemory(storetest.Open(t, store.Config{}))
	require.NoError(t, err)
	data, err := v.Protect(ctx, vault.Input{Doc: []byte(`{"recipient":"Eve <eve@example.com>","template":"workflow_notification",
		"workflowName":"Order Sync","workflowId":"wf-1","records":3,"customer_name":"Eve Adams"}`)})
	require.NoError(t, err)
	require.NotContains(t, string(data), "eve@example.com")
	m := &recordingMailer{}
	x := EmailExecutor{Mailer: m, Personal: v}

	_, err = x.Execute(ctx, attempt(events.TaskEmailNotification, string(data)))
	require.NoError(t, err)
	require.Len(t, m.sent, 1)
	assert.Equal(t, `"Eve" <eve@example.com>`, m.sent[0].To)

	_, err = v.Erase(ctx, vault.Request{Email: "eve@example.com"}, "admin")
	require.NoError(t, err)
	_, err = x.Execute(ctx, attempt(events.TaskEmailNotification, string(data)))
	code, retryable := codeOf(err)
	assert.Equal(t, CodeInvalidRecipient, code)
	assert.False(t, retryable, "no one to send to: a retry cannot help")
	assert.Len(t, m.sent, 1, "nothing more sent")
}
