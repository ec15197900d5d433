#ifndef AVP_STOP_SIGNALS_H
#define AVP_STOP_SIGNALS_H

/// Installs SIGINT and SIGTERM handlers that only write the signal's number, as one byte, to a
/// pipe (the one thing a handler may safely do). Returns the pipe's read end, or -1 on failure.
/// Reading it from an ordinary thread turns a signal into ordinary code, without libdispatch's
/// signal thread (which valgrind cannot run).
int avp_stop_signals_install(void);

/// Unblocks SIGINT and SIGTERM for the calling thread: a parent may hand us a blocked mask
/// (test runners and some shells do), and a blocked signal would never reach the handler.
void avp_stop_signals_unblock(void);

#endif
