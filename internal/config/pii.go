package config

// PIIKMSKey is the KMS key that wraps data subjects' private keys on AWS
// (internal/vault/kmskey): the functions that tokenise wrap with it, those
// that resolve unwrap.
type PIIKMSKey struct {
	KMSKeyARN string `env:"STREAMOPS_PII_KMS_KEY_ARN" desc:"on AWS: the ARN of the KMS key that wraps each data subject's private key (Encrypt and Decrypt with the encryption context streamops:subject), set by the CDK stack to alias/streamops/pii's key; unset: the local key file (STREAMOPS_PII_KEY_FILE) wraps them"`
}

// PIIIndex is where the blind-index HMAC key comes from on AWS.
type PIIIndex struct {
	IndexSecretARN string `env:"STREAMOPS_PII_INDEX_SECRET_ARN" desc:"on AWS: the ARN of the Secrets Manager secret holding the blind-index HMAC key (64 hex digits, 32 bytes) that maps an email or phone number to its subject id, read once at cold start; set by the CDK stack (streamops/pii-index-key). Unset: the key kept in the local key file"`
}

// PIIKeys are the keys of a function that tokenises personal data: it
// wraps a new subject's key and finds a subject by email or phone.
type PIIKeys struct {
	PIIKMSKey
	PIIIndex
}

// PIIUser is the configuration of a function that seals or opens personal
// data: it needs the vault's keys (on Lambda, the KMS key).
type PIIUser interface {
	PIIKeySettings() PIIKeys
}

// PIIKeySettings are the function's vault keys.
func (c Webhook) PIIKeySettings() PIIKeys { return c.PIIKeys }

// PIIKeySettings are the function's vault keys.
func (c API) PIIKeySettings() PIIKeys { return c.PIIKeys }

// PIIKeySettings are the function's vault keys.
func (c WorkflowProcessor) PIIKeySettings() PIIKeys { return c.PIIKeys }

// PIIKeySettings are the function's vault keys.
func (c TaskProcessor) PIIKeySettings() PIIKeys { return c.PIIKeys }

// PIIKeySettings are the function's vault keys: the KMS key alone, since
// it only opens references (no index key).
func (c OutboxRelay) PIIKeySettings() PIIKeys { return PIIKeys{PIIKMSKey: c.PIIKey} }
