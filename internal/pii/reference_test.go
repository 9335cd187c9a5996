package pii_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/pii"
)

const (
	subject = "k3j5abcdefghijklmnopqrstuv"
	// sealedDigits is a sealed part whose bytes a careless scanner would
	// take for a card number, a phone number and an IBAN.
	sealedDigits = "4242424242424242-4155550123_DE89370400440532013000"
)

var (
	refEmail = pii.Reference{Category: pii.CategoryEmail, Subject: subject, Sealed: "AbCdEfGhIjKlMnOp_-09"}.String()
	refCard  = pii.Reference{Category: pii.CategoryCard, Subject: subject + ".2", Sealed: sealedDigits}.String()
	refPhone = pii.Reference{Category: pii.CategoryPhone, Subject: subject, Sealed: "4155550123415555"}.String()
)

func TestReferenceStringAndParse(t *testing.T) {
	r := pii.Reference{Category: pii.CategoryGovernmentID, Subject: subject + ".123456", Sealed: "QUJDREVGR0hJSktMTU5PUA"}

	s := r.String()
	got, ok := pii.ParseReference(s)

	assert.Equal(t, "pii:government_id:"+subject+".123456:QUJDREVGR0hJSktMTU5PUA", s)
	require.True(t, ok)
	assert.Equal(t, r, got)
}

func TestParseReferenceRefusesWhatIsNotExactlyOne(t *testing.T) {
	for _, s := range []string{
		"",
		"pii:email:" + subject,            // no sealed part
		"pii:email:" + subject + ":short", // sealed under 16
		"pii:mail:" + subject + ":AbCdEfGhIjKlMnOp",             // not a category
		"pii:Email:" + subject + ":AbCdEfGhIjKlMnOp",            // upper case
		"pii:email:" + subject[1:] + ":AbCdEfGhIjKlMnOp",        // 25-character subject
		"pii:email:" + subject + "x:AbCdEfGhIjKlMnOp",           // 27
		"pii:email:k3j5abcdefghijklmnopqrstu1:AbCdEfGhIjKlMnOp", // '1' is no base32 digit
		"pii:email:" + subject + ".:AbCdEfGhIjKlMnOp",           // empty generation
		"pii:email:" + subject + ".1234567:AbCdEfGhIjKlMnOp",    // 7-digit generation
		"pii:email:" + subject + ":AbCdEfGhIjKlMnOp=",           // padding
		" " + refEmail, refEmail + " ", refEmail + " " + refEmail, // more than one
	} {
		_, ok := pii.ParseReference(s)
		assert.False(t, ok, s)
	}
}

func TestFindReferenceInsideText(t *testing.T) {
	text := "mailto:" + refEmail + ", or pii:email:nope, then " + refCard + "."

	s1, e1 := pii.FindReference(text, 0)
	s2, e2 := pii.FindReference(text, e1)
	s3, _ := pii.FindReference(text, e2)

	assert.Equal(t, refEmail, text[s1:e1])
	assert.Equal(t, refCard, text[s2:e2])
	assert.Equal(t, -1, s3)
}

func TestEveryCategoryIsValidInAReference(t *testing.T) {
	for _, c := range pii.Categories {
		ref := pii.Reference{Category: c, Subject: subject, Sealed: "AbCdEfGhIjKlMnOp"}.String()
		got, ok := pii.ParseReference(ref)
		assert.True(t, ok, c)
		assert.Equal(t, c, got.Category)
	}
}

// A tokenised document is one whose findings were replaced by references;
// scrubbing or tokenising it again must change nothing.
func TestReferencesAreNeverFindings(t *testing.T) {
	doc := `{"email":"` + refEmail + `","card_number":"` + refCard + `","phone":null,` +
		`"note":"call ` + refPhone + ` or mail ` + refEmail + `","surname":"` + refEmail + `",` +
		`"list":["` + refCard + `",{"remote_addr":"` + refPhone + `"}],"` + refEmail + `":1,` +
		`"url":"https://x.io/?to=` + refEmail + `&card=` + refCard + `%20"}`
	s, err := pii.Default.WithPaths("list.1.*")
	require.NoError(t, err)

	fs, err := s.Findings([]byte(doc))
	require.NoError(t, err)
	out, err := s.Scrub([]byte(doc))
	require.NoError(t, err)
	text, changed := pii.ScrubText(doc)

	assert.Empty(t, fs)
	assert.Equal(t, doc, string(out))
	assert.False(t, changed, text)
}

func TestAReferenceBesideAValueLeavesTheValueFound(t *testing.T) {
	doc := `{"note":"` + refEmail + ` jane@example.com 4242424242424242"}`

	out, err := pii.Scrub([]byte(doc))

	require.NoError(t, err)
	assert.Equal(t, `{"note":"`+refEmail+` [redacted:email] [redacted:card]"}`, string(out))
	assert.True(t, strings.Contains(string(out), refEmail))
}
