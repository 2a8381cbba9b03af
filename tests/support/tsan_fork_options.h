#pragma once

// Included once by a suite that starts processes (nginx, openssl) with
// QProcess while load threads run: ThreadSanitizer would stop at the fork.
#if defined(__SANITIZE_THREAD__)
// nginx and openssl are started with QProcess, which forks; the children
// exec at once, so the load threads started after it are safe.
extern "C" const char* __tsan_default_options() {
    return "die_after_fork=0";
}
#endif
