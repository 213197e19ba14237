// Linux interfaces Swift's Glibc module does not import: epoll, eventfd, accept4, pthread_setname_np.
// Used by HeraldHTTP's event loops and HeraldSync's threads.
#ifndef HERALD_CLINUX_SHIM_H
#define HERALD_CLINUX_SHIM_H

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <pthread.h>

// accept4 and pthread_setname_np are declared only under _GNU_SOURCE, which the Glibc module is built without.
extern int accept4(int fd, struct sockaddr *addr, socklen_t *addrlen, int flags);
extern int pthread_setname_np(pthread_t thread, const char *name);

#endif
