#ifndef COMETCAL_CMICROHTTPD_SHIM_H
#define COMETCAL_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

// MHD_start_daemon, MHD_get_daemon_info and MHD_get_connection_info are variadic, and the
// error logger takes a va_list: none of them can be called or written in Swift. These wrappers
// take the few options CometHTTP sets, by name.

/// Where libmicrohttpd's messages go: formatted here, handed to Swift as one line.
typedef void (*cometcal_mhd_log_sink)(void *context, const char *message);

typedef struct {
    cometcal_mhd_log_sink sink;
    void *context;
} cometcal_mhd_logger;

static inline void cometcal_mhd_log(void *cls, const char *format, va_list arguments) {
    const cometcal_mhd_logger *logger = (const cometcal_mhd_logger *)cls;
    char message[1024];
    vsnprintf(message, sizeof message, format, arguments);
    size_t length = strlen(message);
    while (length > 0 && (message[length - 1] == '\n' || message[length - 1] == '\r')) message[--length] = '\0';
    logger->sink(logger->context, message);
}

/// Reads a numeric IPv4 or IPv6 address (no brackets) and a port into `address`; returns the
/// family (AF_INET or AF_INET6), or 0 when `host` is not a numeric address.
static inline int cometcal_mhd_make_address(const char *host, uint16_t port, struct sockaddr_storage *address) {
    memset(address, 0, sizeof *address);
    struct sockaddr_in *v4 = (struct sockaddr_in *)address;
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(port);
        return AF_INET;
    }
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)address;
    if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(port);
        return AF_INET6;
    }
    return 0;
}

typedef void *(*cometcal_mhd_uri_callback)(void *cls, const char *uri, struct MHD_Connection *connection);

/// Starts a daemon with MHD's own threads, bound to `address`.
static inline struct MHD_Daemon *cometcal_mhd_start(
    unsigned int flags, uint16_t port, const struct sockaddr_storage *address,
    unsigned int thread_pool_size, unsigned int connection_limit,
    unsigned int connection_timeout_seconds, size_t connection_memory_limit,
    MHD_AccessHandlerCallback handler, void *handler_context,
    MHD_RequestCompletedCallback completed, void *completed_context,
    cometcal_mhd_uri_callback uri_callback, void *uri_context,
    cometcal_mhd_logger *logger)
{
    return MHD_start_daemon(
        flags, port, NULL, NULL, handler, handler_context,
        MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)address,
        MHD_OPTION_THREAD_POOL_SIZE, thread_pool_size,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory_limit,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
        MHD_OPTION_URI_LOG_CALLBACK, uri_callback, uri_context,
        MHD_OPTION_EXTERNAL_LOGGER, cometcal_mhd_log, (void *)logger,
        MHD_OPTION_END);
}

/// The port the daemon is bound to (the one the system chose when asked for port 0); 0 when
/// libmicrohttpd cannot say.
static inline uint16_t cometcal_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// The client's numeric address (without its port) into `buffer`; an empty string when unknown.
static inline void cometcal_mhd_client_address(struct MHD_Connection *connection, char *buffer, socklen_t size) {
    buffer[0] = '\0';
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) return;
    const struct sockaddr *address = info->client_addr;
    if (address->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, buffer, size);
    } else if (address->sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)address)->sin6_addr, buffer, size);
    }
}

#endif
