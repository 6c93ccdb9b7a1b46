package main

import (
	"flag"
	"os"
	"time"

	"github.com/artist-rl/artist/openai"
)

// clientFlags are the flags of a command that sends requests to an
// OpenAI-compatible server: where its API key is, and how long one
// request may take and how often it is sent again.
type clientFlags struct {
	apiKeyEnv, apiKey string // -api-key-env, and the key read from it (readKey)
	timeout           time.Duration
	httpRetries       int
}

// register defines -api-key-env, -timeout and -retries on fs, each usage
// text after prefix.
func (c *clientFlags) register(fs *flag.FlagSet, prefix string) {
	fs.StringVar(&c.apiKeyEnv, "api-key-env", "", prefix+"send the API key held by the environment variable `NAME` as a bearer token")
	fs.DurationVar(&c.timeout, "timeout", openai.DefaultTimeout, prefix+"the longest one request may take")
	fs.IntVar(&c.httpRetries, "retries", openai.DefaultRetries, prefix+"how often a request that failed with 429, 5xx, a timeout or a lost connection is sent again (with backoff)")
}

// readKey reads the API key from the variable -api-key-env names, if any,
// and says what is wrong when that variable is empty or unset.
func (c *clientFlags) readKey() (problem string) {
	if c.apiKeyEnv == "" {
		return ""
	}
	if c.apiKey = os.Getenv(c.apiKeyEnv); c.apiKey == "" {
		return "-api-key-env " + c.apiKeyEnv + ": the variable is empty or unset: export the key in it"
	}
	return ""
}

// requestRetries is -retries as openai.Client and rollout.Remote read it: 0
// there means the default, so -retries 0 (none) becomes -1.
func (c *clientFlags) requestRetries() int {
	if c.httpRetries == 0 {
		return -1
	}
	return c.httpRetries
}
