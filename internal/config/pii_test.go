package config_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/config"
)

// TestPIIKeyVariablesAreReadByTheFunctionsTheStackSetsThemOn: the KMS key
// by the functions that tokenise or resolve, the index secret by those
// that tokenise (infra/pii.go), and by no other program.
func TestPIIKeyVariablesAreReadByTheFunctionsTheStackSetsThemOn(t *testing.T) {
	want := map[string][]string{
		"STREAMOPS_PII_KMS_KEY_ARN":      {"webhook", "api", "workflow-processor", "task-processor", "outbox-relay"},
		"STREAMOPS_PII_INDEX_SECRET_ARN": {"webhook", "api", "workflow-processor", "task-processor"},
	}
	for variable, programs := range want {
		for _, p := range config.Programs() {
			reads := slices.ContainsFunc(config.Vars(p.Type), func(v config.Var) bool { return v.Name == variable })
			assert.Equal(t, slices.Contains(programs, p.Name), reads, "%s reads %s", p.Name, variable)
		}
	}
}

func TestPIIKeyValues(t *testing.T) {
	const keyARN = "arn:aws:kms:eu-west-1:111111111111:key/1234abcd-12ab-34cd-56ef-1234567890ab"
	const secretARN = "arn:aws:secretsmanager:eu-west-1:111111111111:secret:streamops/pii-index-key-AbCdEf"
	environ := map[string]string{"STREAMOPS_PII_KMS_KEY_ARN": keyARN, "STREAMOPS_PII_INDEX_SECRET_ARN": secretARN}

	tp, err := config.Parse[config.TaskProcessor](environ)
	require.NoError(t, err)
	assert.Equal(t, config.PIIKeys{PIIKMSKey: config.PIIKMSKey{KMSKeyARN: keyARN}, PIIIndex: config.PIIIndex{IndexSecretARN: secretARN}}, tp.PIIKeys)
	relay, err := config.Parse[config.OutboxRelay](environ)
	require.NoError(t, err)
	assert.Equal(t, keyARN, relay.PIIKey.KMSKeyARN)

	none, err := config.Parse[config.Webhook](nil)
	require.NoError(t, err)
	assert.Zero(t, none.PIIKeys, "unset off AWS: the local key file")
}
