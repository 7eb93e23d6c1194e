package outcome

import "testing"

func TestViolationOf(t *testing.T) {
	tests := []struct {
		line, reason, path string
	}{
		{"touch: cannot touch '/x': Read-only file system", ReasonReadOnly, "/x"},
		{"touch: cannot touch ‘/x/y z’: Read-only file system", ReasonReadOnly, "/x/y z"},
		{"mkdir: cannot create directory `/opt/a': Permission denied", ReasonPermissionDenied, "/opt/a"},
		{"cp: cannot create regular file 'out.txt': Permission denied", ReasonPermissionDenied, "out.txt"},
		{"bash: /x: Permission denied", ReasonPermissionDenied, "/x"},
		{"bash: line 1: /etc/hosts: Permission denied", ReasonPermissionDenied, "/etc/hosts"},
		{"sh: 1: cannot create /etc/motd: Permission denied", ReasonPermissionDenied, "/etc/motd"},
		{"sh: 1: cannot create .bashrc: Read-only file system", ReasonReadOnly, ".bashrc"},
		{"/bin/bash: line 1: audit.jsonl: Read-only file system", ReasonReadOnly, "audit.jsonl"},
		{"open /x: operation not permitted", ReasonNotPermitted, "/x"},
		{"mkdir /usr/lib/foo: read-only file system", ReasonReadOnly, "/usr/lib/foo"},
		{"PermissionError: [Errno 13] Permission denied: '/x'", ReasonPermissionDenied, "/x"},
		{"python3: can't open file '/srv/a.py': [Errno 1] Operation not permitted", ReasonNotPermitted, "/srv/a.py"},
		{"Error: EACCES: permission denied, open '/x'", ReasonPermissionDenied, "/x"},
		{"Error: EPERM: operation not permitted, mkdir '/home/u/.npm'", ReasonNotPermitted, "/home/u/.npm"},
		{"OSError: [Errno 30] Read-only file system: '../up/a'", ReasonReadOnly, "../up/a"},
		{"ls: Permission denied", ReasonPermissionDenied, ""},
		{"fatal: could not lock config file: Permission denied", ReasonPermissionDenied, ""},
		{"bash: foo: Permission denied", ReasonPermissionDenied, ""},
		{"sandbox: write blocked by policy", ReasonPolicyDenied, ""},
		{"error: it's denied by 'policy'", ReasonPolicyDenied, ""},
		{"superpermission thing: EPERMANENT", ReasonPolicyDenied, ""},
		{"EROFS: read-only file system, open '/etc/a'", ReasonReadOnly, "/etc/a"},
		{"touch: cannot touch '/x\x1b[2J': Permission denied", ReasonPermissionDenied, ""},
	}
	for _, tt := range tests {
		v := violationOf("linux", tt.line)
		if v.Reason != tt.reason || v.Path != tt.path || v.Backend != "linux" || v.Snippet != tt.line {
			t.Errorf("violationOf(%q) = %+v, want reason %s path %q", tt.line, v, tt.reason, tt.path)
		}
	}
}
