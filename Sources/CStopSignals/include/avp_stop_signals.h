#ifndef AVP_STOP_SIGNALS_H
#define AVP_STOP_SIGNALS_H

/// Installs SIGINT and SIGTERM handlers that only write the signal's number, as one byte, to a
/// pipe (the one thing a handler may safely do). Returns the pipe's read end, or -1 on failure.
/// Reading it from an ordinary thread turns a signal into ordinary code, without libdispatch's
/// signal thread (which valgrind cannot run).
int avp_stop_signals_install(void);

#endif
