package provider

import (
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// SchemeStripe is Stripe's `Stripe-Signature: t=…,v1=…` header.
const SchemeStripe Scheme = "stripe"

// stripeSignatureHeader carries "t=<unix>,v1=<hex>[,v1=<hex>…]".
const stripeSignatureHeader = "Stripe-Signature"

// verifyStripe checks Stripe's scheme: HMAC-SHA256, hex, over
// "<t>.<body>", keyed with the whole whsec_… secret. Schemes other than v1
// (v0, test-mode extras) are ignored, as Stripe's own libraries do.
func (p *Provider) verifyStripe(h http.Header, body []byte, secrets []string, now time.Time) error {
	v, err := p.signatureHeader(h, stripeSignatureHeader)
	if err != nil {
		return err
	}
	var t string
	var sigs [][]byte
	for item := range strings.SplitSeq(v, ",") {
		key, val, _ := strings.Cut(strings.TrimSpace(item), "=")
		switch key {
		case "t":
			if t == "" {
				t = val
			}
		case "v1":
			if sig, err := hex.DecodeString(val); err == nil && len(sig) > 0 {
				sigs = append(sigs, sig)
			}
		}
	}
	unix, ok := parseUnix(t)
	if !ok {
		return p.signatureError(ErrInvalidSignature, "header %q has no t=<unix seconds> timestamp", stripeSignatureHeader)
	}
	if len(sigs) == 0 {
		return p.signatureError(ErrInvalidSignature, "header %q has no v1 signature", stripeSignatureHeader)
	}
	keys, err := p.rawKeys(secrets)
	if err != nil {
		return err
	}
	if !matchAny(keys, sigs, []byte(t), []byte("."), body) {
		return p.signatureError(ErrInvalidSignature, "no v1 signature in header %q matches a configured secret", stripeSignatureHeader)
	}
	return p.checkTimestamp(unix, now)
}

// signStripe sets the Stripe-Signature header Stripe would send.
func (*Provider) signStripe(h http.Header, secret string, body []byte, opts SignOptions) error {
	t := strconv.FormatInt(opts.Now.Unix(), 10)
	h.Set(stripeSignatureHeader, "t="+t+",v1="+hex.EncodeToString(mac([]byte(secret), []byte(t), []byte("."), body)))
	return nil
}
