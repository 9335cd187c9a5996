package task

import (
	"context"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/objects"
)

// FileMailer is the local stack's mailer: it writes each message as an
// RFC 5322 .eml file named after the task (Dir/<taskId>.eml), so a repeated
// attempt overwrites its own file rather than sending twice.
type FileMailer struct {
	// Dir is where messages are written; created when missing.
	Dir string
	// From is the sender. Default "StreamOps <streamops@localhost>".
	From string
	// Now stamps the Date header. Default time.Now.
	Now func() time.Time
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// Send writes the message and returns its Message-ID.
func (m FileMailer) Send(_ context.Context, e Email) (string, error) {
	from := m.From
	if from == "" {
		from = "StreamOps <streamops@localhost>"
	}
	now := time.Now
	if m.Now != nil {
		now = m.Now
	}
	name := unsafeName.ReplaceAllString(e.ID, "_")
	if name == "" {
		return "", fault.Permanent(CodeEmail, "message has no id")
	}
	messageID := "<" + name + "@streamops.local>"

	var b strings.Builder
	header := func(k, v string) { fmt.Fprintf(&b, "%s: %s\r\n", k, v) }
	header("From", from)
	header("To", e.To)
	header("Subject", mime.QEncoding.Encode("utf-8", e.Subject))
	header("Date", now().UTC().Format(time.RFC1123Z))
	header("Message-ID", messageID)
	header("MIME-Version", "1.0")
	header("Content-Type", "text/plain; charset=utf-8")
	header("Content-Transfer-Encoding", "quoted-printable")
	b.WriteString("\r\n")
	qp := quotedprintable.NewWriter(&b)
	if _, err := qp.Write([]byte(strings.ReplaceAll(e.Text, "\n", "\r\n"))); err != nil {
		return "", fault.Retryable(CodeEmail, err)
	}
	if err := qp.Close(); err != nil {
		return "", fault.Retryable(CodeEmail, err)
	}
	if err := objects.WriteFile(filepath.Join(m.Dir, name+".eml"), strings.NewReader(b.String())); err != nil {
		return "", fault.Retryable(CodeEmail, err)
	}
	return messageID, nil
}
