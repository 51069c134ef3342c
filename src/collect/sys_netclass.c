/*
 * sys_netclass.c - source "sys.netclass": link state of each network
 * interface but loopback, from /sys/class/net/<if>/:
 *   carrier_changes -> event   net.carrier_changes:<if> (links going up/down)
 *   carrier         -> gauge   net.link_up:<if> (1 up, 0 down)
 * The kernel answers EINVAL for the carrier of an interface that is
 * administratively down: a gap, not a zero. Speed and MTU are
 * configuration: they are static facts (collect/facts.c), not channels, and
 * reading speed every sweep would take the RTNL lock for nothing.
 * Interfaces are found at open; one that appears later is not followed
 * until the collector reopens, one that goes away reads as gaps.
 */
#include "collect/sources.h"

#include <string.h>

#include "collect/sysval.h"

static const struct rv_sysattr attrs[] = {
	{ "carrier_changes", "net.carrier_changes", RV_SYSVAL_U64, 1 },
	{ "carrier", "net.link_up", RV_SYSVAL_U64, 1 },
};

/* ARPHRD_LOOPBACK, the `type` of lo. */
static const char loopback_type[] = "772";

static int is_loopback(const char *dir, const char *ifname)
{
	char path[RV_SYSVAL_PATH_MAX], type[16];

	if (strcmp(ifname, "lo") == 0)
		return 1;
	return rv_sysval_path(path, "%s/%s/type", dir, ifname) == 0 &&
	       rv_sysval_text(path, type, sizeof(type), NULL) == 0 &&
	       strcmp(type, loopback_type) == 0;
}

/* bonding_masters and such are files, not interfaces: no attribute opens. */
static int add_if(struct rv_sysvals *sv, struct rv_chanlist *chans, const char *dir,
		  const char *ifname, struct rv_err *err)
{
	char ifdir[RV_SYSVAL_PATH_MAX];

	if (is_loopback(dir, ifname) || rv_sysval_path(ifdir, "%s/%s", dir, ifname))
		return 0;
	return rv_sysvals_add_attrs(sv, chans, ifdir, attrs, sizeof(attrs) / sizeof(attrs[0]),
				    ifname, err);
}

static int netclass_open(const struct rv_collect_cfg *cfg, void **state,
			 struct rv_chanlist *chans, struct rv_err *err)
{
	return rv_sysvals_open_each(cfg, "/sys/class/net", "no network interface but loopback",
				    add_if, state, chans, err);
}

const struct rv_source rv_src_sys_netclass = {
	.name = "sys.netclass",
	.open = netclass_open,
	.sample = rv_sysvals_sample_src,
	.close = rv_sysvals_free,
	.slow = 1,
};
