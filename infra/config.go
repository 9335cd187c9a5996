package main

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"net/mail"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// Context keys. cdk.json carries a value for every required key so that
// `make synth` works offline; the values there are placeholders (they
// contain "placeholder") and `make deploy` refuses them. Override with
// `-c key=value` or in cdk.context.json. Lists accept a JSON array (in
// cdk.json) or a comma-separated string (on the command line).
const (
	ctxAssetDir           = "assetDir"
	ctxMSKClusterArn      = "mskClusterArn"
	ctxKafkaBrokers       = "kafkaBrokers"
	ctxVpcID              = "vpcId"
	ctxSubnetIDs          = "subnetIds"
	ctxSecurityGroupID    = "securityGroupId"
	ctxJWTIssuer          = "jwtIssuer"
	ctxJWTAudience        = "jwtAudience"
	ctxAlarmTopicArn      = "alarmTopicArn"
	ctxMongoURISecretName = "mongoUriSecretName"
	ctxMongoURIVersionID  = "mongoUriSecretVersionId"
	ctxMongoDatabase      = "mongoDatabase"
	ctxWebhookProviders   = "webhookProviders"
	ctxPartners           = "partners"
	ctxProvidersFile      = "providersFile"
	ctxPartnersFile       = "partnersFile"
	ctxMongoCAFile        = "mongoCaFile"
	ctxEmailSender        = "emailSender"
	ctxSESConfigSet       = "sesConfigurationSet"
	ctxExportRetention    = "exportRetentionDays"
	ctxLogLevel           = "logLevel"
	ctxEventLogSample     = "eventLogSample"
	ctxEventsTTL          = "eventsTtl"
	ctxWebhookEventsTTL   = "webhookEventsTtl"
	ctxOutboxTTL          = "outboxTtl"
	ctxWorkflowsTTL       = "workflowsTtl"
	ctxTasksTTL           = "tasksTtl"
	ctxDeadLettersTTL     = "deadLettersTtl"
	ctxReplaySessionsTTL  = "replaySessionsTtl"
	ctxArchiveTTL         = "archiveTtl"
	ctxLogRetentionDays   = "logRetentionDays"
	ctxAPIThrottleRate    = "apiThrottleRate"
	ctxAPIThrottleBurst   = "apiThrottleBurst"
	ctxMSKMaxPollers      = "mskMaxPollers"
	ctxKafkaPartitions    = "kafkaPartitions"
	ctxOffsetLagThreshold = "offsetLagThreshold"
	ctxOutboxAgeAlarm     = "outboxAgeAlarmSeconds"
	ctxRequireRealContext = "requireRealContext"
	// ctxTracing, ctxTraceSampleRatio and ctxAdotLayerArn turn on spans to
	// X-Ray through the ADOT collector layer (tracing.go).
	ctxTracing          = "tracing"
	ctxTraceSampleRatio = "traceSampleRatio"
	ctxAdotLayerArn     = "adotLayerArn"
	// ctxMappingSettingsFile is the path of the event source mapping
	// settings (default defaultMappingSettingsFile).
	ctxMappingSettingsFile = "mappingSettingsFile"
)

// placeholderMarker is in every placeholder value of cdk.json.
const placeholderMarker = "placeholder"

// Config is the deployment's configuration, read from CDK context. Zero
// values of optional fields are replaced by setDefaults.
type Config struct {
	// AssetDir holds the seven <function>.zip files `make build` writes.
	// Default "build", relative to the repository root where the CDK CLI
	// runs the app (cdk.json). Tests point it at stand-in zips.
	AssetDir string

	// MSKClusterArn is the existing cluster the processors consume from and
	// every function produces to, with IAM authentication enabled.
	MSKClusterArn string
	// KafkaBrokers is the cluster's IAM bootstrap broker string
	// (`aws kafka get-bootstrap-brokers` → BootstrapBrokerStringSaslIam,
	// port 9098), passed to the functions as KAFKA_BROKERS.
	KafkaBrokers string
	// VpcID, SubnetIDs and SecurityGroupID place the functions next to the
	// cluster: private subnets with a route to MongoDB and Secrets Manager
	// (NAT or endpoints), and a group the cluster's group admits on 9098.
	VpcID           string
	SubnetIDs       []string
	SecurityGroupID string

	// JWTIssuer and JWTAudience configure the authorizer of /api/*.
	JWTIssuer   string
	JWTAudience []string

	// AlarmTopicArn is the SNS topic every alarm notifies (alarm and OK).
	AlarmTopicArn string

	// MongoURISecretName is the Secrets Manager secret whose SecretString
	// is the MongoDB connection string (MONGODB_URI_SECRET; the functions
	// read it at cold start). Default "streamops/mongodb-uri". It must
	// exist before the functions first start.
	MongoURISecretName string
	// MongoURIVersionID, when set, pins the secret version the functions
	// read the URI from (MONGODB_URI_SECRET_VERSION). Default unset: the
	// AWSCURRENT version at each cold start, so a rotation needs no deploy.
	MongoURIVersionID string
	// MongoDatabase is MONGODB_DATABASE. Default "streamops".
	MongoDatabase string

	// WebhookProviders get one signing-secret placeholder each under
	// streamops/webhook/. The webhook function may read the whole prefix,
	// so a provider added later only needs its secret, not a deploy.
	WebhookProviders []string
	// Partners get one delivery-credentials placeholder each under
	// streamops/partner/, readable by outbox-relay only.
	Partners []string
	// ProvidersFile, when set, is a local file (relative to the repository
	// root, where the CDK CLI runs) shipped on the configuration layer and
	// read through STREAMOPS_PROVIDERS_FILE by the functions that route
	// webhooks (webhook, api, retry-sweeper). Default unset: the table
	// embedded in the binary.
	ProvidersFile string
	// PartnersFile, when set, is a local file shipped on the layer and read
	// through STREAMOPS_PARTNERS_FILE by outbox-relay (the partner
	// endpoints it delivers to) and api (which shows them, GET
	// /api/partners). Default unset: no partner endpoints, so partner
	// deliveries are not attempted.
	PartnersFile string
	// MongoCAFile, when set, is a local PEM bundle (DocumentDB: Amazon's
	// global-bundle.pem) shipped on the layer and named by
	// MONGODB_TLS_CA_FILE in every function. Default unset: the system
	// roots, which Atlas needs.
	MongoCAFile string

	// EmailSender is the SES identity task-processor sends email from
	// (STREAMOPS_EMAIL_SENDER, required on Lambda), verified in SES.
	EmailSender string
	// SESConfigurationSet, when set, is STREAMOPS_SES_CONFIGURATION_SET.
	SESConfigurationSet string
	// ExportRetentionDays is how long the exports bucket keeps an object.
	// Default 30: exports and reports are fetched soon after they are made,
	// and the events they copy stay in MongoDB.
	ExportRetentionDays int

	// EventsTTL is STREAMOPS_EVENTS_TTL of every function: how long an
	// event stays in the events collection before it is archived and
	// deleted, as days ("90d") or a Go duration ("2160h"). Default "90d"
	// (seed 001).
	EventsTTL string
	// WebhookEventsTTL is STREAMOPS_WEBHOOK_EVENTS_TTL of every function:
	// how long a webhook_events row is kept. Default "90d", as the events.
	WebhookEventsTTL string
	// OutboxTTL, WorkflowsTTL, TasksTTL, DeadLettersTTL and
	// ReplaySessionsTTL are STREAMOPS_OUTBOX_TTL, STREAMOPS_WORKFLOWS_TTL,
	// STREAMOPS_TASKS_TTL, STREAMOPS_DEAD_LETTERS_TTL and
	// STREAMOPS_REPLAY_SESSIONS_TTL of every function, read like
	// EventsTTL: how long a delivered outbox entry, a workflow that ended
	// (and its records), a task that ended, a resolved dead letter and a
	// finished replay session are kept. Default "90d" each.
	OutboxTTL, WorkflowsTTL, TasksTTL, DeadLettersTTL, ReplaySessionsTTL string
	// ArchiveTTL is STREAMOPS_ARCHIVE_TTL of every function: how long
	// events_archive keeps an archived event, read like EventsTTL, or
	// "permanent" (seed 001's permanent audit, where one applies).
	// Default "365d".
	ArchiveTTL string

	// LogLevel is STREAMOPS_LOG_LEVEL. Default "info".
	LogLevel string
	// EventLogSample is STREAMOPS_EVENT_LOG_SAMPLE: the share of events,
	// 0 to 1, that get seed 003's "Event published" and "Event processed"
	// lines (docs/operations.md). Default 1, every event.
	EventLogSample float64
	// LogRetentionDays is the retention of every log group. Default 30.
	LogRetentionDays int

	// APIThrottleRate and APIThrottleBurst are the HTTP API's default route
	// throttle (requests per second, bucket size). Defaults 200 and 400:
	// a provider's redelivery storm is throttled (it retries) before it
	// exhausts the functions' share of account concurrency.
	APIThrottleRate  int
	APIThrottleBurst int

	// MSKMaxPollers caps each event source mapping's provisioned pollers.
	// Default 0: the partition count of the mapping's topic (maxPollers),
	// since one poller per partition is as parallel as a
	// partition-ordered consumer gets.
	MSKMaxPollers int
	// Partitions are the topics' partition counts (kafkaPartitions),
	// passed to the topics resource and sizing the mappings' pollers.
	// Default every topic at 3, seed 003's.
	Partitions partitionCounts
	// MappingSettingsFile is internal/eventsource/mapping.json, the MSK event
	// source mappings' settings the local stack uses too. Default
	// defaultMappingSettingsFile, relative to the repository root (cdk.json).
	MappingSettingsFile string
	// Mapping is MappingSettingsFile's content, read by
	// loadMappingSettings after configFromContext.
	Mapping mappingSettings

	// OffsetLagThreshold alarms when a consumer group lags by more records
	// than this for 15 minutes. Default 1000.
	OffsetLagThreshold int
	// OutboxAgeAlarmSeconds alarms when the oldest pending outbox entry is
	// older than this. Default 900: fifteen one-minute relay runs.
	OutboxAgeAlarmSeconds int

	// Tracing gives every function the ADOT collector layer and the
	// settings that make it record OpenTelemetry spans and send them to
	// X-Ray (tracing.go). Default false: no layer, no spans, the template
	// exactly as without it; the trace context propagates either way.
	Tracing bool
	// TraceSampleRatio is STREAMOPS_TRACE_SAMPLE_RATIO when Tracing is on:
	// the share of new traces recorded, 0 to 1. Default
	// defaultTraceSampleRatio.
	TraceSampleRatio float64
	// AdotLayerArn overrides the collector layer (an arm64 layer version
	// ARN), for a region the pinned one is not published in or a newer
	// release. Default unset: defaultAdotLayer for the stack's region.
	AdotLayerArn string

	// RequireRealContext refuses placeholder values; `make deploy` sets it.
	RequireRealContext bool
}

// configFromContext reads the configuration from scope's CDK context,
// fills in defaults and validates it.
func configFromContext(scope constructs.Construct) (Config, error) {
	node := scope.Node()
	get := func(key string) any { return node.TryGetContext(jsii.String(key)) }
	var errs []error
	str := func(key string) string {
		switch v := get(key).(type) {
		case nil:
			return ""
		case string:
			return strings.TrimSpace(v)
		default:
			errs = append(errs, fmt.Errorf("context %s: want a string, got %T", key, v))
			return ""
		}
	}
	list := func(key string) []string {
		var items []string
		switch v := get(key).(type) {
		case nil:
		case string:
			items = strings.Split(v, ",")
		case []any:
			for _, e := range v {
				s, ok := e.(string)
				if !ok {
					errs = append(errs, fmt.Errorf("context %s: want strings, got %T", key, e))
					continue
				}
				items = append(items, s)
			}
		default:
			errs = append(errs, fmt.Errorf("context %s: want a list, got %T", key, v))
		}
		var out []string
		for _, s := range items {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	num := func(key string) int {
		switch v := get(key).(type) {
		case nil:
			return 0
		case float64:
			return int(v)
		case string:
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				errs = append(errs, fmt.Errorf("context %s: %q is not an integer", key, v))
			}
			return n
		default:
			errs = append(errs, fmt.Errorf("context %s: want a number, got %T", key, v))
			return 0
		}
	}
	ratio := func(key string, def float64) float64 {
		bad := func(v any) float64 {
			errs = append(errs, fmt.Errorf("context %s: %v is not a number from 0 to 1 (such as 0.05)", key, v))
			return def
		}
		var f float64
		switch v := get(key).(type) {
		case nil:
			return def
		case float64:
			f = v
		case string:
			var err error
			if f, err = strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil {
				return bad(fmt.Sprintf("%q", v))
			}
		default:
			return bad(fmt.Sprintf("%v (%T)", v, v))
		}
		// Written so that NaN fails too.
		if !(f >= 0 && f <= 1) {
			return bad(f)
		}
		return f
	}
	// A switch is true or false (1 or 0); anything else is refused, so a
	// typo such as tracing=ture is not silently off.
	flag := func(key string) bool {
		switch v := get(key).(type) {
		case nil:
			return false
		case bool:
			return v
		case string:
			switch strings.TrimSpace(v) {
			case "true", "1":
				return true
			case "false", "0", "":
				return false
			}
		}
		errs = append(errs, fmt.Errorf("context %s: %v is not true or false", key, get(key)))
		return false
	}
	cfg := Config{
		AssetDir:              str(ctxAssetDir),
		MSKClusterArn:         str(ctxMSKClusterArn),
		KafkaBrokers:          str(ctxKafkaBrokers),
		VpcID:                 str(ctxVpcID),
		SubnetIDs:             list(ctxSubnetIDs),
		SecurityGroupID:       str(ctxSecurityGroupID),
		JWTIssuer:             str(ctxJWTIssuer),
		JWTAudience:           list(ctxJWTAudience),
		AlarmTopicArn:         str(ctxAlarmTopicArn),
		MongoURISecretName:    str(ctxMongoURISecretName),
		MongoURIVersionID:     str(ctxMongoURIVersionID),
		MongoDatabase:         str(ctxMongoDatabase),
		WebhookProviders:      list(ctxWebhookProviders),
		Partners:              list(ctxPartners),
		ProvidersFile:         str(ctxProvidersFile),
		PartnersFile:          str(ctxPartnersFile),
		MongoCAFile:           str(ctxMongoCAFile),
		EmailSender:           str(ctxEmailSender),
		SESConfigurationSet:   str(ctxSESConfigSet),
		ExportRetentionDays:   num(ctxExportRetention),
		LogLevel:              str(ctxLogLevel),
		EventLogSample:        ratio(ctxEventLogSample, 1),
		LogRetentionDays:      num(ctxLogRetentionDays),
		APIThrottleRate:       num(ctxAPIThrottleRate),
		APIThrottleBurst:      num(ctxAPIThrottleBurst),
		MSKMaxPollers:         num(ctxMSKMaxPollers),
		OffsetLagThreshold:    num(ctxOffsetLagThreshold),
		OutboxAgeAlarmSeconds: num(ctxOutboxAgeAlarm),
		RequireRealContext:    flag(ctxRequireRealContext),
		MappingSettingsFile:   str(ctxMappingSettingsFile),
		Tracing:               flag(ctxTracing),
		TraceSampleRatio:      ratio(ctxTraceSampleRatio, defaultTraceSampleRatio),
		AdotLayerArn:          str(ctxAdotLayerArn),
	}
	for _, r := range cfg.retentions() {
		*r.value = str(r.key)
	}
	if p, err := parsePartitions(get(ctxKafkaPartitions)); err != nil {
		errs = append(errs, fmt.Errorf("context %s: %w", ctxKafkaPartitions, err))
	} else {
		cfg.Partitions = p
	}
	if err := errors.Join(errs...); err != nil {
		return Config{}, err
	}
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// setDefaults fills each setting left at its zero value with its default.
func (c *Config) setDefaults() {
	c.AssetDir = cmp.Or(c.AssetDir, "build")
	c.MappingSettingsFile = cmp.Or(c.MappingSettingsFile, defaultMappingSettingsFile)
	c.MongoURISecretName = cmp.Or(c.MongoURISecretName, "streamops/mongodb-uri")
	c.MongoDatabase = cmp.Or(c.MongoDatabase, "streamops")
	c.ExportRetentionDays = cmp.Or(c.ExportRetentionDays, 30)
	c.LogLevel = cmp.Or(c.LogLevel, "info")
	for _, r := range c.retentions() {
		*r.value = cmp.Or(*r.value, r.def)
	}
	c.LogRetentionDays = cmp.Or(c.LogRetentionDays, 30)
	c.APIThrottleRate = cmp.Or(c.APIThrottleRate, 200)
	c.APIThrottleBurst = cmp.Or(c.APIThrottleBurst, 400)
	c.OffsetLagThreshold = cmp.Or(c.OffsetLagThreshold, 1000)
	c.OutboxAgeAlarmSeconds = cmp.Or(c.OutboxAgeAlarmSeconds, 900)
}

var (
	mskClusterArnRE = regexp.MustCompile(`^arn:aws[a-z-]*:kafka:[a-z0-9-]+:\d{12}:cluster/[^/]+/[^/]+$`)
	snsTopicArnRE   = regexp.MustCompile(`^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_.-]+$`)
	secretNameRE    = regexp.MustCompile(`^[A-Za-z0-9/_+=.@-]+$`)
	layerVersionRE  = regexp.MustCompile(`^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:layer:[A-Za-z0-9_-]+:\d+$`)
)

// Validate reports every bad field, naming its context key.
func (c Config) Validate() error {
	var errs []error
	bad := func(key, reason string) { errs = append(errs, fmt.Errorf("context %s: %s", key, reason)) }
	required := map[string]string{
		ctxMSKClusterArn:   c.MSKClusterArn,
		ctxKafkaBrokers:    c.KafkaBrokers,
		ctxVpcID:           c.VpcID,
		ctxSecurityGroupID: c.SecurityGroupID,
		ctxJWTIssuer:       c.JWTIssuer,
		ctxAlarmTopicArn:   c.AlarmTopicArn,
		ctxEmailSender:     c.EmailSender,
	}
	for _, key := range sortedKeys(required) {
		if required[key] == "" {
			bad(key, "is required")
		}
	}
	if len(c.SubnetIDs) == 0 {
		bad(ctxSubnetIDs, "is required (one or more private subnet ids)")
	}
	if len(c.JWTAudience) == 0 {
		bad(ctxJWTAudience, "is required (one or more audiences)")
	}
	if c.MSKClusterArn != "" && !mskClusterArnRE.MatchString(c.MSKClusterArn) {
		bad(ctxMSKClusterArn, "want arn:aws:kafka:<region>:<account>:cluster/<name>/<uuid>")
	}
	if c.AlarmTopicArn != "" && !snsTopicArnRE.MatchString(c.AlarmTopicArn) {
		bad(ctxAlarmTopicArn, "want arn:aws:sns:<region>:<account>:<name>")
	}
	if c.JWTIssuer != "" && !strings.HasPrefix(c.JWTIssuer, "https://") {
		bad(ctxJWTIssuer, "must be an https:// URL")
	}
	if c.EmailSender != "" {
		if _, err := senderIdentities(c.EmailSender); err != nil {
			bad(ctxEmailSender, err.Error())
		}
	}
	if c.ExportRetentionDays < 1 {
		bad(ctxExportRetention, "must be positive")
	}
	if !secretNameRE.MatchString(c.MongoURISecretName) {
		bad(ctxMongoURISecretName, "is not a Secrets Manager secret name")
	}
	for _, name := range append(append([]string{}, c.WebhookProviders...), c.Partners...) {
		if !secretNameRE.MatchString(name) || strings.Contains(name, "/") {
			bad(ctxWebhookProviders+"/"+ctxPartners, fmt.Sprintf("%q is not a valid secret name segment", name))
		}
	}
	files := map[string]string{ctxProvidersFile: c.ProvidersFile, ctxPartnersFile: c.PartnersFile, ctxMongoCAFile: c.MongoCAFile}
	for _, key := range sortedKeys(files) {
		if path := files[key]; path == "" {
			continue
		} else if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
			bad(key, fmt.Sprintf("%q is not a readable file (a path on this machine, relative to the repository root)", path))
		}
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		bad(ctxLogLevel, fmt.Sprintf("%q: want debug, info, warn or error", c.LogLevel))
	}
	for _, r := range c.retentions() {
		if r.permanent && *r.value == permanentRetention {
			continue
		}
		if err := validRetention(*r.value); err != nil {
			bad(r.key, err.Error())
		}
	}
	if _, ok := retentionDays[c.LogRetentionDays]; !ok {
		bad(ctxLogRetentionDays, fmt.Sprintf("%d is not a CloudWatch Logs retention (1, 3, 5, 7, 14, 30, 60, 90, 180, 365, …)", c.LogRetentionDays))
	}
	if c.APIThrottleRate < 1 || c.APIThrottleBurst < 1 {
		bad(ctxAPIThrottleRate+"/"+ctxAPIThrottleBurst, "must be positive")
	}
	if c.MSKMaxPollers < 0 || c.MSKMaxPollers > maxPollersPerMapping {
		bad(ctxMSKMaxPollers, fmt.Sprintf("must be between 1 and %d (unset: the partition count of the mapping's topic)", maxPollersPerMapping))
	}
	if c.OffsetLagThreshold < 1 {
		bad(ctxOffsetLagThreshold, "must be positive")
	}
	if c.OutboxAgeAlarmSeconds < 60 {
		bad(ctxOutboxAgeAlarm, "must be at least 60 (the relay runs once a minute)")
	}
	if c.AdotLayerArn != "" && !layerVersionRE.MatchString(c.AdotLayerArn) {
		bad(ctxAdotLayerArn, fmt.Sprintf("%q: want a layer version ARN, arn:aws:lambda:<region>:<account>:layer:<name>:<version>", c.AdotLayerArn))
	}
	if c.RequireRealContext {
		values := c.contextValues()
		for _, key := range sortedKeys(values) {
			if v := values[key]; strings.Contains(v, placeholderMarker) {
				bad(key, fmt.Sprintf("%q is the cdk.json placeholder: pass the real value with -c %s=…", v, key))
			}
		}
	}
	return errors.Join(errs...)
}

// contextValues are the environment-specific values, by context key, that
// cdk.json fills with placeholders.
func (c Config) contextValues() map[string]string {
	return map[string]string{
		ctxMSKClusterArn:   c.MSKClusterArn,
		ctxKafkaBrokers:    c.KafkaBrokers,
		ctxVpcID:           c.VpcID,
		ctxSubnetIDs:       strings.Join(c.SubnetIDs, ","),
		ctxSecurityGroupID: c.SecurityGroupID,
		ctxJWTIssuer:       c.JWTIssuer,
		ctxJWTAudience:     strings.Join(c.JWTAudience, ","),
		ctxAlarmTopicArn:   c.AlarmTopicArn,
		ctxEmailSender:     c.EmailSender,
	}
}

// retentionDays maps the retentions CloudWatch Logs accepts, in days, to
// the CDK's names for them.
var retentionDays = map[int]awslogs.RetentionDays{
	1: awslogs.RetentionDays_ONE_DAY, 3: awslogs.RetentionDays_THREE_DAYS,
	5: awslogs.RetentionDays_FIVE_DAYS, 7: awslogs.RetentionDays_ONE_WEEK,
	14: awslogs.RetentionDays_TWO_WEEKS, 30: awslogs.RetentionDays_ONE_MONTH,
	60: awslogs.RetentionDays_TWO_MONTHS, 90: awslogs.RetentionDays_THREE_MONTHS,
	120: awslogs.RetentionDays_FOUR_MONTHS, 150: awslogs.RetentionDays_FIVE_MONTHS,
	180: awslogs.RetentionDays_SIX_MONTHS, 365: awslogs.RetentionDays_ONE_YEAR,
	400: awslogs.RetentionDays_THIRTEEN_MONTHS, 545: awslogs.RetentionDays_EIGHTEEN_MONTHS,
	731: awslogs.RetentionDays_TWO_YEARS, 1096: awslogs.RetentionDays_THREE_YEARS,
	1827: awslogs.RetentionDays_FIVE_YEARS, 2192: awslogs.RetentionDays_SIX_YEARS,
	2557: awslogs.RetentionDays_SEVEN_YEARS, 2922: awslogs.RetentionDays_EIGHT_YEARS,
	3288: awslogs.RetentionDays_NINE_YEARS, 3653: awslogs.RetentionDays_TEN_YEARS,
}

// sortedKeys returns m's keys in order, so errors and resources come out
// the same way every synth.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// senderIdentities are the SES identities that may authorize mail from
// sender: its address and its domain (SES checks whichever is verified).
func senderIdentities(sender string) ([]string, error) {
	addr, err := mail.ParseAddress(sender)
	if err != nil {
		return nil, fmt.Errorf("%q is not an email address", sender)
	}
	_, domain, _ := strings.Cut(addr.Address, "@")
	return []string{addr.Address, domain}, nil
}

// defaultRetention is the default of the store retention periods but the
// archive's.
const defaultRetention = "90d"

// defaultArchiveRetention is ArchiveTTL's default: a year (the archive is
// finite unless a deployment keeps it permanent).
const defaultArchiveRetention = "365d"

// permanentRetention is the ArchiveTTL that keeps the archive forever.
const permanentRetention = "permanent"

// retention is one store retention period: the context key that sets
// it, the variable of every function it becomes, its default, whether
// it may be permanent, and the Config field that holds it.
type retention struct {
	key, env, def string
	permanent     bool
	value         *string
}

// retentions are the store's retention periods (docs/reliability.md,
// "Retention").
func (c *Config) retentions() []retention {
	return []retention{
		{ctxEventsTTL, envEventsTTL, defaultRetention, false, &c.EventsTTL},
		{ctxWebhookEventsTTL, envWebhookEventsTTL, defaultRetention, false, &c.WebhookEventsTTL},
		{ctxOutboxTTL, envOutboxTTL, defaultRetention, false, &c.OutboxTTL},
		{ctxWorkflowsTTL, envWorkflowsTTL, defaultRetention, false, &c.WorkflowsTTL},
		{ctxTasksTTL, envTasksTTL, defaultRetention, false, &c.TasksTTL},
		{ctxDeadLettersTTL, envDeadLettersTTL, defaultRetention, false, &c.DeadLettersTTL},
		{ctxReplaySessionsTTL, envReplaySessionsTTL, defaultRetention, false, &c.ReplaySessionsTTL},
		{ctxArchiveTTL, envArchiveTTL, defaultArchiveRetention, true, &c.ArchiveTTL},
	}
}

// validRetention checks a store retention period as the functions parse it
// at start (internal/store ParseRetention, which this module cannot
// import): whole days ("90d") or a Go duration ("2160h"), at least an hour,
// so a bad value fails the synth instead of every function's cold start.
func validRetention(v string) error {
	var d time.Duration
	if days, ok := strings.CutSuffix(v, "d"); ok {
		n, err := strconv.ParseInt(days, 10, 64)
		if err != nil || n > math.MaxInt64/int64(24*time.Hour) {
			return fmt.Errorf("%q: want whole days such as 90d, or a duration such as 2160h", v)
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(v); err != nil {
			return fmt.Errorf("%q: want whole days such as 90d, or a duration such as 2160h", v)
		}
	}
	if d < time.Hour {
		return fmt.Errorf("%q: want at least 1h", v)
	}
	if d > math.MaxInt32*time.Second {
		return fmt.Errorf("%q: want at most 24855d (a TTL index's longest)", v)
	}
	return nil
}
