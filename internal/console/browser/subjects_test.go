//go:build browser

package browser_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	subjectEmail = "ada.lovelace@example.com"
	subjectPhone = "+44 20 7946 0958"
	otherEmail   = "bob.babbage@example.org"
)

// subjectsView is GET /api/subjects/{id} as the test reads it.
type subjectsView struct {
	Subjects []struct {
		SubjectID string         `json:"subjectId"`
		Live      bool           `json:"live"`
		Held      map[string]int `json:"held"`
		Places    map[string]int `json:"places"`
		Erasures  []struct {
			ReceiptID string `json:"receiptId"`
		} `json:"erasures"`
	} `json:"subjects"`
}

// TestConsoleSubjectsLookUpAndErase submits, through the API, a workflow
// whose records carry Ada's email and phone number and a task carrying
// Bob's email; an admin looks Ada up on the Subjects page by her email and
// sees what is held (counts and places, never the value), erases her
// through the confirmation and sees the receipt; a second lookup shows
// her erased with that receipt, Bob still live, and an erasure through the
// API answers the same receipt. The email is never in the page's URL. A
// partner token is offered no Subjects page. Screenshots: subjects,
// subjects-receipt.
func TestConsoleSubjectsLookUpAndErase(t *testing.T) {
	s := startStack(t)
	b := newBrowser(t)
	require.Equal(t, http.StatusCreated, s.call(http.MethodPost, "/api/workflows",
		[]byte(`{"name":"CRM Sync","steps":["validate","store"],"priority":"low","input":{"records":[`+
			`{"email":"`+subjectEmail+`","phone":"`+subjectPhone+`","surname":"Lovelace"}]}}`), nil, nil))
	require.Equal(t, http.StatusCreated, s.call(http.MethodPost, "/api/tasks",
		[]byte(`{"type":"email_notification","data":{"recipient":"`+otherEmail+`","subject":"hi","body":"hello"}}`), nil, nil))
	lookup := func(id string) subjectsView {
		var v subjectsView
		body, err := json.Marshal(map[string]string{"email": id})
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, s.call(http.MethodPost, "/api/subjects/lookup", body, nil, &v))
		return v
	}
	before := lookup(subjectEmail)
	require.Len(t, before.Subjects, 1)
	ada := before.Subjects[0]
	require.True(t, ada.Live)

	admin := b.newTab(t)
	admin.signIn(t, s.URL(), adminToken, "admin")
	admin.do(t, click(`header nav a[href="/console/subjects"]`))
	admin.waitFor(t, `location.pathname === '/console/subjects' && document.querySelector('[data-testid=subject-search]')`, "the Subjects page")

	search := func(id string) {
		admin.do(t, fill(`[data-testid=subject-search] input`, id), submit(`[data-testid=subject-search] input`))
	}
	shownSel := fmt.Sprintf(`[data-testid=subject][data-subject-id=%q]`, ada.SubjectID)
	shown := fmt.Sprintf(`document.querySelector(%q)`, shownSel)

	// The lookup: what is held, never a value.
	search(subjectEmail)
	admin.waitFor(t, shown+`?.dataset.live === 'true'`, "Ada, live")
	held := texts(t, admin, `[data-testid=held] td`)
	for cat, n := range ada.Held {
		assert.Contains(t, strings.Join(held, " "), fmt.Sprintf("%s %d", cat, n), "held %s", cat)
	}
	assert.Contains(t, held, "email")
	assert.Contains(t, texts(t, admin, `[data-testid=places] td`), "api:workflows")
	assert.Equal(t, []string{"0"}, texts(t, admin, `[data-testid=resolutions]`))
	text := admin.source(t)
	for _, value := range []string{subjectEmail, "7946", "Lovelace"} {
		assert.NotContains(t, text, value, "the page shows no value")
	}
	assert.NotContains(t, eval[string](t, admin, `location.href`), "example.com", "the email is kept out of the URL")
	assert.NotContains(t, eval[string](t, admin, `location.href`), "%40")
	admin.screenshot(t, "subjects")

	// The erasure: asked first, then the receipt.
	admin.do(t, click(`[data-testid=erase-open]`))
	admin.waitFor(t, `document.querySelector('[data-testid=erase-confirm]')`, "the confirmation")
	contains(t, admin, "cannot be undone")
	require.True(t, lookup(subjectEmail).Subjects[0].Live, "nothing is erased before the confirmation")
	admin.do(t, click(`[data-testid=erase-yes]`))
	admin.waitFor(t, `document.querySelector('[data-testid=receipt]')?.dataset.repeated === 'false' && `+shown+`?.dataset.live === 'false'`,
		"the receipt, and Ada erased")
	receipt := texts(t, admin, `[data-testid=receipt-id]`)[0]
	assert.Equal(t, []string{"admin"}, texts(t, admin, `[data-testid=receipt-by]`))
	rows := texts(t, admin, `[data-testid=receipt-subjects] td`)
	require.NotEmpty(t, rows)
	assert.Equal(t, ada.SubjectID, rows[0])
	assert.Contains(t, strings.Join(rows, " "), "api:workflows 1")
	assert.Zero(t, count(t, admin, `[data-testid=erase-open]`), "nothing left to erase")
	after := lookup(subjectEmail)
	require.Len(t, after.Subjects, 1)
	assert.False(t, after.Subjects[0].Live)
	require.Len(t, after.Subjects[0].Erasures, 1)
	assert.Equal(t, receipt, after.Subjects[0].Erasures[0].ReceiptID, "the receipt shown is the erasure's")
	admin.screenshot(t, "subjects-receipt")

	// A second lookup (by the phone number this time) shows her erased
	// with that receipt.
	search(subjectPhone)
	admin.waitFor(t, `!document.querySelector('[data-testid=receipt]') && `+shown+`?.dataset.live === 'false' && `+
		`document.querySelector('[data-testid=erasures]')`, "Ada erased, on a new lookup")
	assert.Contains(t, texts(t, admin, `[data-testid=erasures] td`), receipt)
	assert.Contains(t, texts(t, admin, shownSel+` .badge`), "erased")
	assert.Zero(t, count(t, admin, `[data-testid=erase-open]`))

	// Bob is untouched; the same erasure again answers the same receipt.
	search(otherEmail)
	admin.waitFor(t, `document.querySelector('[data-testid=subject]')?.dataset.live === 'true' && `+
		`document.querySelector('[data-testid=erase-open]')`, "Bob, live")
	var again struct {
		ReceiptID string `json:"receiptId"`
		Repeated  bool   `json:"repeated"`
	}
	require.Equal(t, http.StatusOK, s.call(http.MethodPost, "/api/subjects/erase", []byte(`{"email":"`+subjectEmail+`"}`), nil, &again))
	assert.Equal(t, receipt, again.ReceiptID)
	assert.True(t, again.Repeated)

	// A subject id goes into the URL, so the page can be shared and
	// reloaded; one that reaches no one is said so.
	admin.open(t, s.URL()+"/console/subjects?subject="+ada.SubjectID, shown+`?.dataset.live === 'false'`, "Ada by her subject id")
	search("no-such-subject")
	admin.waitFor(t, `location.search === '?subject=no-such-subject' && document.querySelector('[data-testid=subject-none]')`, "nothing held")
	contains(t, admin, "Nothing is held for this subject id.")
	admin.noConsoleErrors(t)

	partner := b.newTab(t)
	partner.signIn(t, s.URL(), acmeToken, "partner acme")
	assert.Zero(t, count(t, partner, `header nav a[href="/console/subjects"]`), "a partner is offered no Subjects page")
	partner.open(t, s.URL()+"/console/subjects", `document.querySelector('[data-testid=principal]')`, "the console")
	assert.Zero(t, count(t, partner, `[data-testid=subject-search]`))
}
