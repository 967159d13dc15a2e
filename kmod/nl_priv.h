/* SPDX-License-Identifier: GPL-2.0 */
/* optinc.ko: what netlink.c and nl_get.c, the family's handlers, share. */
#ifndef OPTINC_NL_PRIV_H
#define OPTINC_NL_PRIV_H

#include <net/genetlink.h>

/* A required attribute: extack names its type and says it is missing. */
#define NL_REQUIRE(info, attr, name) ({					\
	bool __missing = GENL_REQ_ATTR_CHECK(info, attr);		\
									\
	if (__missing)							\
		NL_SET_ERR_MSG((info)->extack, name " is required");	\
	__missing;							\
})

/* An optional attribute of @width bits, or @def. */
static inline u32 nl_get_u(struct nlattr *a, u32 def, int width)
{
	if (!a)
		return def;
	return width == 8 ? nla_get_u8(a) : width == 16 ? nla_get_u16(a) :
	       nla_get_u32(a);
}

extern struct genl_family optinc_nl_family;
struct optinc_kswitch *optinc_nl_switch(struct genl_info *info);

#endif /* OPTINC_NL_PRIV_H */
