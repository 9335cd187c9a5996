// Package vault keeps personal data usable without keeping it in clear:
// every personal datum found at an ingress is replaced by a reference
// (pii.Reference) that holds the value sealed to its data subject's public
// key (HPKE, RFC 9180). Only the subject's private key opens it, and that
// key is stored wrapped by a key-encryption key (a local key file under
// make run, AWS KMS in the cloud) in the store's pii_subjects collection.
//
// Protect replaces the personal data of a document; Resolve and
// ResolveDocument open references where a step needs the value (an email
// task's recipient, a partner allowed clear values), recording each
// resolution without the value; Erase destroys a subject's keys, so every
// copy of its data anywhere (the store, Kafka, exports, backups) becomes
// unreadable at once; Lookup says what is held for a subject.
//
// What must not live here: finding personal data (package pii), HTTP,
// or knowledge of a collection's documents beyond the vault's own.
package vault
