package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssecretsmanager"
	"github.com/aws/jsii-runtime-go"
)

// The keys of personal data (docs/reliability.md, "Personal data"): each
// data subject's private key is stored wrapped by one customer-managed KMS
// key (internal/vault/kmskey), and a Secrets Manager secret holds the
// blind-index HMAC key that maps an email or phone number to its subject
// id. Who may do what follows functionSpec.tokenises and .resolves:
//
//   - a function that tokenises (replaces personal data with references,
//     creating the subject of a new person) may kms:Encrypt with the key,
//     only with a subject in the encryption context, and read the index
//     secret;
//   - a function that resolves (opens a reference where a step needs the
//     value) may kms:Decrypt with the key, under the same condition;
//   - a function that opens the signing secrets of the partners kept in
//     the store (the api's test send) may kms:Decrypt only a partner
//     secret's subject (partnerSecretSubjects), not a data subject's;
//   - no other function may do either, and no role gets kms:ReEncrypt*,
//     kms:GenerateDataKey* or secretsmanager:DescribeSecret (the CDK's
//     grantEncrypt and grantRead would add them);
//   - the key policy denies kms:Decrypt to every principal but the
//     resolvers' roles, so no one else in the account (an administrator's
//     kms:* on *, a future function's role) can unwrap a subject's key.
//
// Both are retained when the stack is deleted: without the key every
// subject's data is unreadable, without the index secret no one can be
// found by email or phone to be erased.

// piiKeyAlias is the KMS alias of the personal-data key.
const piiKeyAlias = "alias/streamops/pii"

// piiIndexSecretName is the blind-index key's secret; it is under none of
// the prefixes granted in secrets.go.
const piiIndexSecretName = "streamops/pii-index-key"

// piiKeys are the stack's personal-data key and index secret.
type piiKeys struct {
	key         awskms.Key
	indexSecret awssecretsmanager.Secret
	// resolvers are the roles use gave kms:Decrypt (of any subject, or of
	// partner secrets only).
	resolvers []awsiam.IRole
}

// newPIIKeys creates the KMS key and the index secret.
func newPIIKeys(stack awscdk.Stack) *piiKeys {
	key := awskms.NewKey(stack, jsii.String("PersonalDataKey"), &awskms.KeyProps{
		Description: jsii.String("StreamOps personal data: wraps each data subject's private key (internal/vault/kmskey)"),
		Alias:       jsii.String(piiKeyAlias),
		KeySpec:     awskms.KeySpec_SYMMETRIC_DEFAULT,
		KeyUsage:    awskms.KeyUsage_ENCRYPT_DECRYPT,
		// KMS rotates the key material yearly and keeps every earlier
		// version to decrypt what it wrapped: nothing is rewrapped.
		EnableKeyRotation: jsii.Bool(true),
		// Deleting the key erases every subject at once; it must take a
		// decision of its own (schedule-key-deletion), not a stack delete.
		RemovalPolicy: awscdk.RemovalPolicy_RETAIN,
		PendingWindow: awscdk.Duration_Days(jsii.Number(30)),
	})
	secret := awssecretsmanager.NewSecret(stack, jsii.String("PersonalDataIndexKey"), &awssecretsmanager.SecretProps{
		SecretName:  jsii.String(piiIndexSecretName),
		Description: jsii.String("StreamOps personal data: the blind-index HMAC key (64 hex digits, 32 bytes) mapping an email or phone number to its subject id"),
		// 64 characters of 0-9a-f: 256 random bits, read as hex by
		// kmskey.IndexKeyFromSecret.
		GenerateSecretString: &awssecretsmanager.SecretStringGenerator{
			PasswordLength:          jsii.Number(64),
			ExcludeUppercase:        jsii.Bool(true),
			ExcludePunctuation:      jsii.Bool(true),
			ExcludeCharacters:       jsii.String("ghijklmnopqrstuvwxyz"),
			IncludeSpace:            jsii.Bool(false),
			RequireEachIncludedType: jsii.Bool(false),
		},
		RemovalPolicy: awscdk.RemovalPolicy_RETAIN,
	})
	suppress(secret, "AwsSolutions-SMG4",
		"every subject id is the HMAC of an email or phone number under this key: a rotated key would map each person to "+
			"a new subject, so their data could no longer be found to erase or resolve; it is created once and never rotated")
	return &piiKeys{key: key, indexSecret: secret}
}

// use gives fn what spec says it does with personal data: its grants and
// the variables naming the key and the secret.
func (k *piiKeys) use(fn awslambda.Function, spec functionSpec) {
	if spec.tokenises || spec.resolves {
		fn.AddEnvironment(jsii.String(envPIIKMSKeyARN), k.key.KeyArn(), nil)
	}
	if spec.tokenises {
		fn.AddEnvironment(jsii.String(envPIIIndexSecretARN), k.indexSecret.SecretArn(), nil)
		fn.AddToRolePolicy(k.keyStatement("WrapSubjectKeys", "kms:Encrypt"))
		fn.AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Sid:       jsii.String("ReadPersonalDataIndexKey"),
			Actions:   jsii.Strings("secretsmanager:GetSecretValue"),
			Resources: &[]*string{k.indexSecret.SecretArn()},
		}))
	}
	if spec.resolves {
		fn.AddToRolePolicy(k.keyStatement("UnwrapSubjectKeys", "kms:Decrypt"))
		k.resolvers = append(k.resolvers, fn.Role())
	} else if spec.opensPartnerSecrets {
		st := k.keyStatement("OpenPartnerSecrets", "kms:Decrypt")
		st.AddCondition(jsii.String("StringLike"), map[string]any{"kms:EncryptionContext:" + piiContextKey: partnerSecretSubjects})
		fn.AddToRolePolicy(st)
		k.resolvers = append(k.resolvers, fn.Role())
	}
}

// partnerSecretSubjects matches the encryption-context subject under which
// internal/partners seals a stored partner's signing secret
// ("partner-secret:<partner>/<secret>").
const partnerSecretSubjects = "partner-secret:*"

// denyDecryptToAllButResolvers adds the key policy statement that makes
// the resolvers' roles the only principals that can decrypt with the key,
// whatever their IAM policies allow others; call it after use.
func (k *piiKeys) denyDecryptToAllButResolvers() {
	var roles []any
	for _, r := range k.resolvers {
		roles = append(roles, r.RoleArn())
	}
	k.key.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:        jsii.String("OnlyResolversDecrypt"),
		Effect:     awsiam.Effect_DENY,
		Principals: &[]awsiam.IPrincipal{awsiam.NewAnyPrincipal()},
		Actions:    jsii.Strings("kms:Decrypt"),
		Resources:  jsii.Strings("*"),
		// aws:PrincipalArn is the role's ARN for its sessions.
		Conditions: &map[string]any{"ArnNotEquals": map[string]any{"aws:PrincipalArn": roles}},
	}), jsii.Bool(false))
}

// keyStatement allows action on the key alone, and only for a request that
// names a subject in its encryption context, as every kmskey call does.
func (k *piiKeys) keyStatement(sid, action string) awsiam.PolicyStatement {
	return awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:       jsii.String(sid),
		Actions:   jsii.Strings(action),
		Resources: &[]*string{k.key.KeyArn()},
		Conditions: &map[string]any{
			"Null": map[string]any{"kms:EncryptionContext:" + piiContextKey: "false"},
		},
	})
}
