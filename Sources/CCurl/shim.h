#include <curl/curl.h>

// curl_easy_setopt and curl_multi_setopt are variadic, which Swift cannot call;
// these typed wrappers are the whole reason this header exists.
static inline CURLcode herald_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode herald_curl_easy_setopt_ptr(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode herald_curl_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
typedef size_t (*herald_curl_write_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);
static inline CURLcode herald_curl_easy_setopt_write(CURL *handle, CURLoption option, herald_curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLMcode herald_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}
static inline CURLcode herald_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode herald_curl_easy_getinfo_ptr(CURL *handle, CURLINFO info, void *value) {
    return curl_easy_getinfo(handle, info, value);
}
typedef curl_socket_t (*herald_curl_opensocket_callback)(void *clientp, curlsocktype purpose, struct curl_sockaddr *address);
static inline CURLcode herald_curl_easy_setopt_opensocket(CURL *handle, herald_curl_opensocket_callback value) {
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, value);
}
