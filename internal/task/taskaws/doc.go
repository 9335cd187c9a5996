// Package taskaws is the task executors' AWS backends: the SES v2 mailer
// and the choice of SES and S3 from the task-processor's configuration.
// It is a package of its own so that only the task-processor links the
// SES client; package task keeps the executors and the local backends.
package taskaws
