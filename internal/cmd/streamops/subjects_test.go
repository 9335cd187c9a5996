package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/vault"
)

const (
	adaEmail = "ada.lovelace@example.com"
	adaPhone = "+44 20 7946 0958"
	bobEmail = "bob.babbage@example.org"
)

// submitPersonal submits, through the API, a workflow whose records carry
// Ada's email and phone number and a task carrying Bob's email, so the
// vault holds a subject for each.
func (a *api) submitPersonal(t *testing.T) {
	t.Helper()
	require.Equal(t, http.StatusCreated, a.client.Call(t, "POST", "/api/workflows",
		[]byte(`{"name":"crm sync","steps":["validate","store"],"priority":"low","input":{"records":[`+
			`{"email":"`+adaEmail+`","phone":"`+adaPhone+`","surname":"Lovelace"}]}}`), nil, nil))
	require.Equal(t, http.StatusCreated, a.client.Call(t, "POST", "/api/tasks",
		[]byte(`{"type":"email_notification","data":{"recipient":"`+bobEmail+`","subject":"hi","body":"hello"}}`), nil, nil))
}

// subjectIDIn is the subject id a `subjects show` output names first.
func subjectIDIn(t *testing.T, out string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^subject (\S+)  generation \d+  `).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	return m[1]
}

// TestOpsSubjectsShowAndErase: `streamops subjects show` prints what is
// held for an email, a phone number or a subject id (counts and places,
// never the value); `subjects erase -email` prints the receipt and the
// subject is erased, another person's is not; erasing again (by email,
// or by the same person's phone) prints the first receipt, said to be
// repeated, and emits no second subject.erased; -json prints the API's
// answers as they are.
func TestOpsSubjectsShowAndErase(t *testing.T) {
	a := newAPI(t)
	a.submitPersonal(t)

	code, out, errOut := a.ops(t, "", "subjects", "show", adaEmail)
	require.Equal(t, 0, code, errOut)
	ada := subjectIDIn(t, out)
	assert.Regexp(t, `(?m)^subject `+ada+`  generation 1  live$`, out)
	assert.Regexp(t, `(?m)^  held\s+.*email 1.*phone 1`, out)
	assert.Regexp(t, `(?m)^  places\s+api:workflows 1$`, out)
	assert.Regexp(t, `(?m)^  resolutions\s+0$`, out)
	assert.Regexp(t, `(?m)^  erasures\s+none$`, out)
	assert.NotContains(t, out, adaEmail, "never a value")
	assert.NotContains(t, out, "Lovelace")

	for _, id := range []string{adaPhone, ada} {
		code, again, errOut := a.ops(t, "", "subjects", "show", id)
		require.Equal(t, 0, code, errOut)
		assert.Equal(t, out, again, "the phone number and the subject id reach the same subject")
	}
	code, out, errOut = a.ops(t, "", "subjects", "show", "-json", adaEmail)
	require.Equal(t, 0, code, errOut)
	var shown httpapi.SubjectsView
	require.Equal(t, http.StatusOK, a.client.Call(t, "POST", "/api/subjects/lookup", []byte(`{"email":"`+adaEmail+`"}`), nil, &shown))
	want, err := json.Marshal(shown)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), out)

	code, out, errOut = a.ops(t, "", "subjects", "show", "nobody@example.net")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "nothing is held for this subject.\n", out)

	// The erasure.
	code, out, errOut = a.ops(t, "", "subjects", "erase", "-email", adaEmail)
	require.Equal(t, 0, code, errOut)
	m := regexp.MustCompile(`^receipt (\S+): erased (\S+) by admin \(named by email\)\n`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	receipt, at := m[1], m[2]
	assert.NotContains(t, out, "already erased")
	assert.Regexp(t, `(?m)^SUBJECT\s+GENERATION\s+HELD\s+PLACES$`, out)
	assert.Regexp(t, `(?m)^`+ada+`\s+1\s+.*email 1.*phone 1.*\s+api:workflows 1$`, out)
	assert.NotContains(t, out, adaEmail)

	code, out, errOut = a.ops(t, "", "subjects", "show", adaEmail)
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `(?m)^subject `+ada+`  generation 1  erased$`, out)
	assert.Regexp(t, `(?m)^  erased\s+`+regexp.QuoteMeta(at)+` by admin, generation 1, receipt `+receipt+`$`, out)

	code, out, errOut = a.ops(t, "", "subjects", "show", bobEmail)
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `(?m)^subject \S+  generation 1  live$`, out, "another person's data is not erased")
	assert.NotEqual(t, ada, subjectIDIn(t, out))

	// Again: the same receipt, said to be the first one.
	for _, args := range [][]string{{"-email", adaEmail}, {"-phone", adaPhone}, {"-subject", ada}} {
		code, out, errOut = a.ops(t, "", append([]string{"subjects", "erase"}, args...)...)
		require.Equal(t, 0, code, errOut)
		assert.Regexp(t, `^already erased: the first receipt\nreceipt `+receipt+`: erased `+regexp.QuoteMeta(at)+` by admin \(named by email\)\n`, out, args)
		assert.Regexp(t, `(?m)^`+ada+`\s+1\s`, out)
	}
	code, out, errOut = a.ops(t, "", "subjects", "erase", "-json", "-email", adaEmail)
	require.Equal(t, 0, code, errOut)
	var rc vault.Receipt
	require.NoError(t, json.Unmarshal([]byte(out), &rc), out)
	assert.Equal(t, receipt, rc.ReceiptID)
	assert.True(t, rc.Repeated)
	require.Len(t, rc.Subjects, 1)
	assert.Equal(t, ada, rc.Subjects[0].SubjectID)

	erased := 0
	for _, e := range a.Envelopes(t, events.TopicOperations) {
		if e.EventType == events.SubjectErased {
			erased++
		}
	}
	assert.Equal(t, 1, erased, "one erasure, one subject.erased, however often it is asked")

	// No one held: an empty receipt, the same each time.
	code, out, errOut = a.ops(t, "", "subjects", "erase", "-email", "nobody@example.net")
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `^receipt \S+: erased \S+ by admin \(named by email\)\nnothing was held for this subject\.\n$`, out)
}

// TestOpsSubjectsRefusesBadUsage: erase runs only with exactly one of
// -email, -phone and -subject, and sends nothing otherwise; show takes one
// id; the API's refusals (a phone number without digits, a deployment
// without a vault) are printed as the other commands print them.
func TestOpsSubjectsRefusesBadUsage(t *testing.T) {
	a := newAPI(t)
	a.submitPersonal(t)
	noVault := httptest.NewServer(httpapi.API(httpapi.APIConfig{Store: a.Store, Logger: a.Logger, Auth: httpapi.TokenAuth{AdminToken: token}}))
	t.Cleanup(noVault.Close)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"erase names no subject", []string{"subjects", "erase"}, "name the subject by exactly one of -email, -phone or -subject"},
		{"erase names two", []string{"subjects", "erase", "-email", adaEmail, "-phone", adaPhone}, "name the subject by exactly one of -email, -phone or -subject"},
		{"erase names an empty one", []string{"subjects", "erase", "-email", " "}, "name the subject by exactly one of -email, -phone or -subject"},
		{"erase takes no argument", []string{"subjects", "erase", "-email", adaEmail, "more"}, "name the subject by exactly one of -email, -phone or -subject"},
		{"a phone without digits", []string{"subjects", "erase", "-phone", "call me"}, "400 validation_failed"},
		{"show names none", []string{"subjects", "show"}, "name one subject"},
		{"show names two", []string{"subjects", "show", adaEmail, bobEmail}, "name one subject"},
		{"no subcommand", []string{"subjects"}, "name a subcommand: erase, show"},
		{"unknown subcommand", []string{"subjects", "forget"}, `unknown subcommand "forget": erase, show`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := a.ops(t, "", tc.args...)
			assert.Equal(t, 1, code, out)
			assert.Contains(t, errOut, "streamops subjects: "+tc.want)
			assert.Empty(t, out)
		})
	}

	code, out, errOut := a.ops(t, "", "subjects", "show", adaEmail)
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `(?m)  live$`, out, "no refused erase reached the API")
	t.Setenv("STREAMOPS_ADMIN_TOKEN", "")
	code, _, errOut = runCLI("", "subjects", "erase", "-url", a.srv.URL)
	assert.Equal(t, 1, code)
	assert.Equal(t, "streamops subjects: name the subject by exactly one of -email, -phone or -subject\n", errOut,
		"the subject is asked for before the token")

	for _, args := range [][]string{{"subjects", "erase", "-email", adaEmail}, {"subjects", "show", adaEmail}} {
		code, _, errOut := runCLI("", append(append(args[:2:2], "-url", noVault.URL, "-token", token), args[2:]...)...)
		assert.Equal(t, 1, code)
		assert.Contains(t, errOut, "501 no_vault", args)
	}
	assert.True(t, strings.Contains(usage, "subjects erase (-email X | -phone X | -subject ID)"), "the help names the command")
}
