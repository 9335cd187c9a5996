package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/testenv"
)

// TestKafkaTopicsBinaryAnswersCloudFormation runs functions/kafka-topics
// under the Runtime API emulator with CloudFormation's request
// (testdata/cloudformation), its presigned ResponseURL pointed at a local
// server: Create makes the topics on kfake and PUTs SUCCESS; Delete PUTs
// SUCCESS and the topics stay.
func TestKafkaTopicsBinaryAnswersCloudFormation(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the function binaries")
	}
	cluster := testenv.Broker(t)
	answers := make(chan map[string]any, 2)
	s3 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, http.MethodPut, r.Method)
		b, _ := io.ReadAll(r.Body)
		var resp map[string]any
		assert.NoError(t, json.Unmarshal(b, &resp), "%s", b)
		answers <- resp
	}))
	t.Cleanup(s3.Close)

	request := func(kind, physicalID string) []byte {
		var ev map[string]any
		require.NoError(t, json.Unmarshal(testenv.Testdata(t, "cloudformation/kafka-topics-create.json"), &ev))
		ev["RequestType"] = kind
		ev["ResponseURL"] = s3.URL + "/response?X-Amz-Signature=test"
		if physicalID != "" {
			ev["PhysicalResourceId"] = physicalID
		}
		b, err := json.Marshal(ev)
		require.NoError(t, err)
		return b
	}
	env := []string{brokersEnv(cluster.ListenAddrs()), "AWS_LAMBDA_FUNCTION_NAME=StreamOps-KafkaTopics"}
	topicsExist := func() {
		t.Helper()
		cl, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()...))
		require.NoError(t, err)
		defer cl.Close()
		details, err := kadm.NewClient(cl).ListTopics(t.Context())
		require.NoError(t, err)
		for _, spec := range bus.Topics() {
			require.Contains(t, details, spec.Name)
			assert.Len(t, details[spec.Name].Partitions, int(spec.Partitions), spec.Name)
		}
	}

	res, logs := invoke(t, "kafka-topics", env, request("Create", ""))
	require.Equal(t, "response", res.kind, "%s\n%s", res.body, logs)
	created := <-answers
	assert.Equal(t, "SUCCESS", created["Status"], created["Reason"])
	assert.Equal(t, "streamops-kafka-topics", created["PhysicalResourceId"])
	assert.Equal(t, "Topics", created["LogicalResourceId"])
	topicsExist()

	res, logs = invoke(t, "kafka-topics", env, request("Delete", "streamops-kafka-topics"))
	require.Equal(t, "response", res.kind, "%s\n%s", res.body, logs)
	deleted := <-answers
	assert.Equal(t, "SUCCESS", deleted["Status"], deleted["Reason"])
	topicsExist()
}
