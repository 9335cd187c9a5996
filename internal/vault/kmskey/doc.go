// Package kmskey wraps and unwraps data subjects' private keys with an
// AWS KMS customer-managed symmetric key, for the vault on AWS (the local
// stack wraps with the key file instead, package vault). A subject's key is
// encrypted by KMS with the encryption context {"streamops:subject":
// <subject id>}, which KMS binds to the ciphertext: a wrapped key handed in
// under another subject does not unwrap, and CloudTrail records which
// subject each call was for. The blind-index HMAC key, which maps an email
// or phone number to its subject id, is read from Secrets Manager here too
// (IndexKeyFromSecret).
//
// Failures are typed (ErrKeyUnusable, ErrAccessDenied, ErrThrottled,
// ErrUnavailable, ErrInvalidWrapped, inspected with errors.Is, or *Error
// with errors.As) so callers decide on retries with IsRetryable, not by
// reading AWS error codes.
//
// What must not live here: what a subject is, how its key is made or
// stored (package vault), or any key in clear beyond the call that uses it.
package kmskey
