// SPDX-License-Identifier: GPL-2.0
/*
 * The loopback TCP round trip that bounds the bootstrap: ping-pong of
 * 129-byte messages (the unique-id message's size) over 127.0.0.1 with
 * TCP_NODELAY, as the kernel's peer links are set up. Prints the median and
 * the 90th percentile in microseconds: "rtt_us MEDIAN P90".
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MSG	129
#define ROUNDS	2000

static int lfd;

static int full(int fd, char *buf, int len, int send_it)
{
	int done = 0, n;

	while (done < len) {
		n = send_it ? send(fd, buf + done, len - done, MSG_NOSIGNAL) :
			      recv(fd, buf + done, len - done, 0);
		if (n <= 0)
			return -1;
		done += n;
	}
	return 0;
}

static void *echo(void *arg)
{
	char buf[MSG];
	int fd = accept(lfd, NULL, NULL), one = 1, i;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	for (i = 0; i < ROUNDS + 100; i++)
		if (full(fd, buf, MSG, 0) || full(fd, buf, MSG, 1))
			break;
	close(fd);
	return arg;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	static double us[ROUNDS];
	char buf[MSG] = { 0 };
	struct timespec a, b;
	pthread_t t;
	int fd, one = 1, i;

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 1) ||
	    getsockname(lfd, (struct sockaddr *)&sa, &len)) {
		perror("bench-bootstrap-rtt: listen");
		return 1;
	}
	pthread_create(&t, NULL, echo, NULL);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("bench-bootstrap-rtt: connect");
		return 1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	for (i = -100; i < ROUNDS; i++) {
		clock_gettime(CLOCK_MONOTONIC, &a);
		if (full(fd, buf, MSG, 1) || full(fd, buf, MSG, 0)) {
			fprintf(stderr, "bench-bootstrap-rtt: the echo went away\n");
			return 1;
		}
		clock_gettime(CLOCK_MONOTONIC, &b);
		if (i >= 0)
			us[i] = (b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) / 1e3;
	}
	close(fd);
	pthread_join(t, NULL);
	qsort(us, ROUNDS, sizeof(us[0]), cmp);
	printf("rtt_us %.1f %.1f\n", us[ROUNDS / 2], us[ROUNDS * 9 / 10]);
	return 0;
}
