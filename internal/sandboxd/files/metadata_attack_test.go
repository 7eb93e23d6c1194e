package files

import "testing"

// TestMetadataWithholdsSecretShapes: variables an operator might put
// under the prefix whose name is not one of the reference daemon's
// markers, and whose value policy.CredentialValue does not read as a
// credential (a connection string's password, an HTTP authorization, a
// JWT, a slack webhook), or whose name says session or signing secret.
// Each was served by /v1/metadata before. Ordinary values beside them
// still are (the control that the filter is not "withhold everything").
func TestMetadataWithholdsSecretShapes(t *testing.T) {
	env := []string{
		"SANDBOX_CONN=Server=db;User Id=sa;Password=hunter2;", "SANDBOX_ODBC=Driver={x};UID=sa;PWD=hunter2",
		"SANDBOX_HEADER=Authorization: Bearer abc.def.ghi", "SANDBOX_UPSTREAM=Basic dXNlcjpwYXNz",
		"SANDBOX_ID_DOC=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig", "SANDBOX_NOTIFY=https://hooks.slack.com/services/T0/B0/XXXXXXXX",
		"SANDBOX_ARGS=--api_key=abcdef123456", "SANDBOX_JWT=x", "SANDBOX_SESSION=x", "SANDBOX_HMAC=x", "SANDBOX_SIGNING=x",
		"SANDBOX_SALT=x", "SANDBOX_DATABASE_DSN=x", "SANDBOX_WEBHOOK_URL=x",
		"SANDBOX_ID=sbx-1", "SANDBOX_REGION=eu-west-1", "SANDBOX_IMAGE=ghcr.io/org/img:1.2", "SANDBOX_URL=https://api.example/v1?x=1",
		"SANDBOX_BASE=basically", "SANDBOX_HOST=db.example:5432",
	}
	got := metadataEnv(env, "SANDBOX_")
	want := map[string]string{"SANDBOX_ID": "sbx-1", "SANDBOX_REGION": "eu-west-1", "SANDBOX_IMAGE": "ghcr.io/org/img:1.2",
		"SANDBOX_URL": "https://api.example/v1?x=1", "SANDBOX_BASE": "basically", "SANDBOX_HOST": "db.example:5432"}
	for k, v := range got {
		if want[k] != v {
			t.Errorf("served %s=%s", k, v)
		}
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			t.Errorf("withheld an ordinary variable %s", k)
		}
	}
}
