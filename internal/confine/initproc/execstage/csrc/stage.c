// The landlock backend's exec stage for linux/amd64, without a Go runtime.
//
// The init (internal/confine/initproc, nest_linux.go) forks this program
// from a sealed memfd as the command's parent would fork the command. It
// inherits everything the init applied (its Landlock domain, seccomp,
// no_new_privs, no capabilities), adds one Landlock layer that only
// scopes signals and abstract unix sockets, and executes the command, so
// the command cannot signal its init or reach its sockets while the init
// itself stays outside that layer. It is initproc's Go exec stage
// (execStage, nestDomain) without the ≈6 ms start of a Go program.
//
// argv: [stage, prog, argv0, argv1, ...]; envp is the command's.
// Descriptor 3 is the report pipe: nothing when the command's execve
// succeeds, else one byte ('s': the layer could not be made; 'x': the
// execve failed) and the errno as 4 bytes little-endian; then the stage
// exits 125 (initproc.ExitSetup). Descriptor 4 is the memfd the stage was
// executed from. Both are made close-on-exec before anything else, so
// the command inherits neither.
//
// Built freestanding (no libc, no start files): see ../stagebuild.

#define SYS_write 1
#define SYS_close 3
#define SYS_execve 59
#define SYS_fcntl 72
#define SYS_prctl 157
#define SYS_exit_group 231
#define SYS_openat 257
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446

#define AT_FDCWD -100
#define O_PATH 010000000
#define O_CLOEXEC 02000000
#define F_SETFD 2
#define FD_CLOEXEC 1
#define PR_SET_NO_NEW_PRIVS 38
#define EOPNOTSUPP 95
#define EINVAL 22

#define LANDLOCK_CREATE_RULESET_VERSION 1
#define LANDLOCK_RULE_PATH_BENEATH 1
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)

#define REPORT_FD 3
#define IMAGE_FD 4
#define EXIT_SETUP 125

struct ruleset_attr {
	unsigned long long handled_access_fs;
	unsigned long long handled_access_net;
	unsigned long long scoped;
};

struct path_beneath_attr {
	unsigned long long allowed_access;
	int parent_fd;
} __attribute__((packed));

static long sys6(long n, long a, long b, long c, long d, long e, long f) {
	long r;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return r;
}

#define sys3(n, a, b, c) sys6(n, (long)(a), (long)(b), (long)(c), 0, 0, 0)

// fail reports kind and the errno of r (a negative syscall result) and
// exits; it never returns.
static void __attribute__((noreturn)) fail(char kind, long r) {
	unsigned int e = (unsigned int)(r < 0 ? -r : EINVAL);
	unsigned char msg[5] = {(unsigned char)kind, e, e >> 8, e >> 16, e >> 24};
	sys3(SYS_write, REPORT_FD, msg, 5);
	for (;;)
		sys3(SYS_exit_group, EXIT_SETUP, 0, 0);
}

// nest restricts this process with a domain that adds only the scopes.
// Every Landlock layer refuses reparenting (REFER) unless it grants it,
// so this one handles REFER and grants it beneath /, leaving the init's
// layer alone to decide (initproc.nestDomain says the same).
static long nest(void) {
	long abi = sys3(SYS_landlock_create_ruleset, 0, 0, LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 0)
		return abi;
	if (abi < 6)
		return -EOPNOTSUPP;
	struct ruleset_attr attr = {
		.handled_access_fs = LANDLOCK_ACCESS_FS_REFER,
		.scoped = LANDLOCK_SCOPE_SIGNAL | LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET,
	};
	long fd = sys3(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
	if (fd < 0)
		return fd;
	long root = sys6(SYS_openat, AT_FDCWD, (long)"/", O_PATH | O_CLOEXEC, 0, 0, 0);
	if (root < 0)
		return root;
	struct path_beneath_attr rule = {.allowed_access = LANDLOCK_ACCESS_FS_REFER, .parent_fd = (int)root};
	long r = sys6(SYS_landlock_add_rule, fd, LANDLOCK_RULE_PATH_BENEATH, (long)&rule, 0, 0, 0);
	sys3(SYS_close, root, 0, 0);
	if (r < 0)
		return r;
	// no_new_privs is inherited from the init; set again in case.
	r = sys6(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0);
	if (r < 0)
		return r;
	r = sys3(SYS_landlock_restrict_self, fd, 0, 0);
	sys3(SYS_close, fd, 0, 0);
	return r;
}

static void __attribute__((noreturn, used)) stage(long *sp) {
	long argc = sp[0];
	char **argv = (char **)(sp + 1);
	char **envp = argv + argc + 1;
	long r = sys3(SYS_fcntl, REPORT_FD, F_SETFD, FD_CLOEXEC);
	if (r < 0)
		fail('s', r);
	r = sys3(SYS_fcntl, IMAGE_FD, F_SETFD, FD_CLOEXEC);
	if (r < 0)
		fail('s', r);
	if (argc < 3)
		fail('s', -EINVAL);
	r = nest();
	if (r < 0)
		fail('s', r);
	r = sys3(SYS_execve, argv[1], argv + 2, envp);
	fail('x', r);
}

// _start hands the initial stack (argc, argv, NULL, envp, NULL, auxv) to
// stage, with the stack aligned as the ABI wants at a call.
__asm__(".globl _start\n"
	"_start:\n"
	"\txor %rbp, %rbp\n"
	"\tmov %rsp, %rdi\n"
	"\tand $-16, %rsp\n"
	"\tcall stage\n"
	"\thlt\n");
