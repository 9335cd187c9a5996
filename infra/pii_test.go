package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
	"github.com/stretchr/testify/assert"
)

// Who handles personal data (issue 34): the tokenisers wrap new subjects'
// keys and read the index secret, the resolvers unwrap; nobody else does
// either.
var (
	piiTokenisers = []string{fnWebhook, fnAPI, fnWorkflowProcessor, fnTaskProcessor}
	piiResolvers  = []string{fnTaskProcessor, fnOutboxRelay}
	// piiSecretOpeners may decrypt with the key only a partner secret's
	// subject (the api's test send to a stored partner).
	piiSecretOpeners = []string{fnAPI}
)

func TestPersonalDataKeyIsSymmetricRotatedRetainedAndAliased(t *testing.T) {
	tmpl, raw := stackTemplate(t)
	assertTemplate(t, "one KMS key", func() {
		tmpl.ResourceCountIs(jsii.String("AWS::KMS::Key"), jsii.Number(1))
	})
	assertTemplate(t, "personal-data key", func() {
		tmpl.HasResource(jsii.String("AWS::KMS::Key"), obj(map[string]any{
			"Properties": obj(map[string]any{
				"EnableKeyRotation":   true,
				"KeySpec":             "SYMMETRIC_DEFAULT",
				"KeyUsage":            "ENCRYPT_DECRYPT",
				"PendingWindowInDays": 30,
			}),
			"DeletionPolicy":      "Retain",
			"UpdateReplacePolicy": "Retain",
		}))
	})
	key := onlyID(t, raw, "AWS::KMS::Key", "PersonalDataKey")
	assertTemplate(t, "alias", func() {
		tmpl.HasResourceProperties(jsii.String("AWS::KMS::Alias"), obj(map[string]any{
			"AliasName":   piiKeyAlias,
			"TargetKeyId": getAtt(key, "Arn"),
		}))
	})
}

// TestPersonalDataKeyPolicyLetsOnlyTheResolversDecrypt: whatever IAM
// policies allow (an administrator's kms:* on *), the key policy denies
// kms:Decrypt to every principal but the resolvers' roles.
func TestPersonalDataKeyPolicyLetsOnlyTheResolversDecrypt(t *testing.T) {
	_, raw := stackTemplate(t)
	key := resources(raw, "AWS::KMS::Key")[onlyID(t, raw, "AWS::KMS::Key", "PersonalDataKey")]
	var want []string
	for _, name := range slices.Concat(piiResolvers, piiSecretOpeners) {
		fn := resources(raw, "AWS::Lambda::Function")[functionID(t, raw, name)]
		want = append(want, "getatt:"+props(fn)["Role"].(map[string]any)["Fn::GetAtt"].([]any)[0].(string)+".Arn")
	}
	var denies int
	for _, s := range asList(props(key)["KeyPolicy"].(map[string]any)["Statement"]) {
		st := s.(map[string]any)
		if st["Effect"] != "Deny" {
			continue
		}
		denies++
		if render(st["Action"]) != "kms:Decrypt" || render(st["Principal"].(map[string]any)["AWS"]) != "*" || st["Resource"] != "*" {
			t.Errorf("deny statement = %v, want kms:Decrypt for every principal on the key", st)
		}
		var except []string
		cond, _ := st["Condition"].(map[string]any)
		notEquals, _ := cond["ArnNotEquals"].(map[string]any)
		for _, arn := range asList(notEquals["aws:PrincipalArn"]) {
			except = append(except, render(arn))
		}
		assert.ElementsMatch(t, want, except, "the principals kms:Decrypt is not denied to")
	}
	if denies != 1 {
		t.Errorf("key policy has %d deny statements, want the one of kms:Decrypt", denies)
	}
}

func TestPersonalDataIndexSecretIsA32ByteHexKeyThatIsKept(t *testing.T) {
	tmpl, _ := stackTemplate(t)
	assertTemplate(t, "index secret", func() {
		tmpl.HasResource(jsii.String("AWS::SecretsManager::Secret"), obj(map[string]any{
			"Properties": obj(map[string]any{
				"Name": piiIndexSecretName,
				// 64 of 0-9a-f: what kmskey.IndexKeyFromSecret reads.
				"GenerateSecretString": map[string]any{
					"PasswordLength":          64,
					"ExcludeUppercase":        true,
					"ExcludePunctuation":      true,
					"ExcludeCharacters":       "ghijklmnopqrstuvwxyz",
					"IncludeSpace":            false,
					"RequireEachIncludedType": false,
				},
				// Encrypted with Secrets Manager's own key, not the
				// personal-data key: the api reads it without kms:Decrypt.
				"KmsKeyId": assertions.Match_Absent(),
			}),
			"DeletionPolicy": "Retain",
		}))
	})
	for _, prefix := range []string{secretPrefixWebhook, secretPrefixPartner, secretPrefixAdmin} {
		if strings.HasPrefix(piiIndexSecretName, prefix) {
			t.Errorf("%s is under %s, whose readers would read it too", piiIndexSecretName, prefix)
		}
	}
}

// TestOnlyTokenisersEncryptAndOnlyResolversDecryptPersonalData checks every
// function's role against the key: kms:Encrypt exactly for the tokenisers,
// kms:Decrypt exactly for the resolvers, no other use of the key (or of
// every key), each grant only with a subject in the encryption context; and
// the index secret readable by the tokenisers alone.
func TestOnlyTokenisersEncryptAndOnlyResolversDecryptPersonalData(t *testing.T) {
	_, raw := stackTemplate(t)
	key := "getatt:" + onlyID(t, raw, "AWS::KMS::Key", "PersonalDataKey") + ".Arn"
	secret := "ref:" + onlyID(t, raw, "AWS::SecretsManager::Secret", "PersonalDataIndexKey")
	anyKey := "arn:aws:kms:" + testRegion + ":" + testAccount + ":key/00000000-0000-0000-0000-000000000000"
	for _, name := range functionNames {
		t.Run(name, func(t *testing.T) {
			stmts, _ := roleStatements(t, raw, name)
			tokenises, resolves := slices.Contains(piiTokenisers, name), slices.Contains(piiResolvers, name)
			opens := slices.Contains(piiSecretOpeners, name)
			checks := []struct {
				action, resource string
				want             bool
			}{
				{"kms:Encrypt", key, tokenises},
				{"kms:Decrypt", key, resolves || opens},
				{"kms:ReEncryptFrom", key, false},
				{"kms:ReEncryptTo", key, false},
				{"kms:GenerateDataKey", key, false},
				{"kms:CreateGrant", key, false},
				{"kms:ScheduleKeyDeletion", key, false},
				{"kms:DisableKey", key, false},
				{"kms:Encrypt", anyKey, false},
				{"kms:Decrypt", anyKey, false},
				{"secretsmanager:GetSecretValue", secret, tokenises},
				{"secretsmanager:GetSecretValue", secretArn(piiIndexSecretName), false},
				{"secretsmanager:DescribeSecret", secret, false},
				{"secretsmanager:PutSecretValue", secret, false},
			}
			for _, c := range checks {
				if got := canRead(stmts, c.action, c.resource); got != c.want {
					t.Errorf("%s on %s = %v, want %v", c.action, c.resource, got, c.want)
				}
			}
			for _, s := range stmts {
				if !slices.Contains(s.resources, key) {
					continue
				}
				null, _ := s.conditions["Null"].(map[string]any)
				if null["kms:EncryptionContext:"+piiContextKey] != "false" {
					t.Errorf("%v on the key without requiring the %s encryption context: %v", s.actions, piiContextKey, s.conditions)
				}
				like, _ := s.conditions["StringLike"].(map[string]any)
				if opens && !resolves && slices.Contains(s.actions, "kms:Decrypt") && like["kms:EncryptionContext:"+piiContextKey] != partnerSecretSubjects {
					t.Errorf("kms:Decrypt on the key for more than partner secrets (%s): %v", partnerSecretSubjects, s.conditions)
				}
			}
		})
	}
}
