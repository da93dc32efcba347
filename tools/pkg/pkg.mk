# SPDX-License-Identifier: GPL-2.0
# tools/pkg/: installing encd, DKMS and the Debian packages.
#
#   make install [DESTDIR=...] [PREFIX=/usr/local] [KVER=...] [ENCD_GROUP=encd]
#   make uninstall [DESTDIR=...]    removes exactly what install put there
#   make install-dkms               the DKMS source tree into /usr/src/encd-<version>
#   make deb                        encd-dkms, libenc1, libenc-dev, libenc-json1,
#                                   libenc-json-dev and encctl in build/deb/
#   make check-install [KVER=6.12]  installs those in a VM (tools/pkg/install-test.sh)
#   make check-install-tree         install, then uninstall, into a scratch DESTDIR
#                                   on the host (tools/pkg/check-install-tree.sh);
#                                   part of `make check`
#
# `make install` is install-module (encd.ko for KVER into
# /lib/modules/KVER/updates/, then depmod), install-user (lib/lib.mk's
# install-lib: libenc and libenc-json, their headers with uapi/linux/encd.h,
# .pc files and man pages; then encctl, encctl(8) and its bash completion)
# and install-system (the udev rule that gives /dev/encd to ENCD_GROUP, mode
# 0660, the udev rule and systemd unit that sync the topology from the
# Neuron driver, and the commented modprobe.d sample). Each part is staged under
# build/install/stage/ first; tools/pkg/install-tree.sh copies it into
# DESTDIR and keeps a manifest per part under build/install/manifests/, which
# `make uninstall` reads. With DESTDIR set, depmod and ldconfig are left to
# whoever installs the tree on a system, as kbuild does.

PKG_DIR := $(TOP)/tools/pkg
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
# udev reads no rules under /usr/local: a local install goes where the
# administrator's own rules are; a package passes /lib/udev/rules.d.
UDEVRULESDIR ?= /etc/udev/rules.d
MODPROBEDIR ?= /etc/modprobe.d
# The unit the Neuron udev rule starts; a package passes /lib/systemd/system.
SYSTEMDUNITDIR ?= /etc/systemd/system
SYSTEMCTL ?= /bin/systemctl
MODULEDIR ?= /lib/modules/$(KVER)/updates
DKMSSRCDIR ?= /usr/src
ENCD_GROUP ?= encd

PKG_STAGE := $(BUILD)/install/stage
# One set of manifests per destination: build/install/manifests/<DESTDIR>/.
PKG_MANIFESTS := $(BUILD)/install/manifests$(abspath $(DESTDIR))
DKMS_TREE := $(BUILD)/dkms/encd-$(ENCD_VERSION)

.PHONY: install install-module install-user install-system install-dkms uninstall dkms-source deb

install: install-module install-user install-system

# $(call pkg_install,part): copies the part's stage into DESTDIR.
pkg_install = $(PKG_DIR)/install-tree.sh install $(PKG_STAGE)/$(1) "$(DESTDIR)" \
	$(PKG_MANIFESTS)/$(1).list

install-module: module
	rm -rf $(PKG_STAGE)/module
	install -D -m 0644 $(MODULE) $(PKG_STAGE)/module$(MODULEDIR)/encd.ko
	$(call pkg_install,module)
	$(if $(DESTDIR),,depmod -a $(KVER))

install-user: lib tools
	rm -rf $(PKG_STAGE)/user
	$(MAKE) --no-print-directory install-lib DESTDIR=$(PKG_STAGE)/user
	install -D -m 0755 $(ENCCTL) $(PKG_STAGE)/user$(SBINDIR)/encctl
	install -D -m 0644 $(TOP)/Documentation/encctl.8 $(PKG_STAGE)/user$(MANDIR)/man8/encctl.8
	install -D -m 0644 $(TOP)/tools/encctl/encctl.bash-completion \
		$(PKG_STAGE)/user$(BASHCOMPDIR)/encctl
	$(call pkg_install,user)
	$(if $(DESTDIR),,ldconfig)

install-system:
	@echo '$(ENCD_GROUP)' | grep -Eq '^[a-z_][a-z0-9_-]{0,31}$$' || { \
		echo "ENCD_GROUP='$(ENCD_GROUP)' is not a group name (lower case, digits, _ and -)" >&2; \
		exit 1; }
	rm -rf $(PKG_STAGE)/system
	install -d $(PKG_STAGE)/system$(UDEVRULESDIR) $(PKG_STAGE)/system$(MODPROBEDIR) \
		$(PKG_STAGE)/system$(SYSTEMDUNITDIR)
	sed 's/@ENCD_GROUP@/$(ENCD_GROUP)/g' $(PKG_DIR)/60-encd.rules.in \
		> $(PKG_STAGE)/system$(UDEVRULESDIR)/60-encd.rules
	sed 's|@SYSTEMCTL@|$(SYSTEMCTL)|g' $(PKG_DIR)/61-encd-neuron.rules.in \
		> $(PKG_STAGE)/system$(UDEVRULESDIR)/61-encd-neuron.rules
	sed 's|@SBINDIR@|$(SBINDIR)|g' $(PKG_DIR)/encd-topo-sync.service.in \
		> $(PKG_STAGE)/system$(SYSTEMDUNITDIR)/encd-topo-sync.service
	install -m 0644 $(PKG_DIR)/encd.conf $(PKG_STAGE)/system$(MODPROBEDIR)/encd.conf
	$(call pkg_install,system)
	@[ -n "$(DESTDIR)" ] || getent group $(ENCD_GROUP) >/dev/null || \
		echo "note: group $(ENCD_GROUP) does not exist yet: 'groupadd --system" \
			"$(ENCD_GROUP)', then add users to it, for /dev/encd"

# The tree DKMS builds from: the checkout's layout, with real files.
dkms-source:
	rm -rf $(DKMS_TREE)
	install -d $(DKMS_TREE)/kmod $(DKMS_TREE)/uapi/linux
	install -m 0644 $(TOP)/Kbuild $(DKMS_TREE)/
	install -m 0644 $(TOP)/kmod/Kbuild $(TOP)/kmod/*.c $(TOP)/kmod/*.h $(DKMS_TREE)/kmod/
	install -m 0644 $(TOP)/uapi/linux/*.h $(DKMS_TREE)/uapi/linux/
	sed 's/#MODULE_VERSION#/$(ENCD_VERSION)/g' $(TOP)/dkms.conf > $(DKMS_TREE)/dkms.conf

# Then: dkms add -m encd -v $(ENCD_VERSION) && dkms build ... && dkms install ...
install-dkms: dkms-source
	rm -rf $(PKG_STAGE)/dkms
	install -d $(PKG_STAGE)/dkms$(DKMSSRCDIR)
	cp -a $(DKMS_TREE) $(PKG_STAGE)/dkms$(DKMSSRCDIR)/
	$(call pkg_install,dkms)

uninstall:
	@set -- $(wildcard $(PKG_MANIFESTS)/*.list); \
	if [ $$# = 0 ]; then \
		echo "uninstall: nothing was installed into '$(DESTDIR)/' from this build" \
			"directory (no manifests in $(PKG_MANIFESTS))" >&2; \
		exit 1; \
	fi; \
	module=; [ ! -f $(PKG_MANIFESTS)/module.list ] || module=$$(sed -n \
		's|^f /lib/modules/\([^/]*\)/.*|\1|p' $(PKG_MANIFESTS)/module.list | sort -u); \
	user=; [ ! -f $(PKG_MANIFESTS)/user.list ] || user=1; \
	$(PKG_DIR)/install-tree.sh uninstall "$(DESTDIR)" "$$@" && \
	if [ -z "$(DESTDIR)" ]; then \
		for k in $$module; do depmod -a $$k || exit 1; done; \
		[ -z "$$user" ] || ldconfig; \
	fi

# Debian packages, built by dpkg-buildpackage from a copy of the source in
# build/deb/encd-<version>/ and checked by lintian (errors fail the build).
DEB_DIR := $(BUILD)/deb

deb:
	@$(PKG_DIR)/deb.sh --top $(TOP) --out $(DEB_DIR) --version $(ENCD_VERSION)

# make install and make uninstall, checked on the host.
.PHONY: check-install-tree
check-install-tree: module lib tools
	@$(PKG_DIR)/check-install-tree.sh --top $(TOP) --kver $(KVER) --version $(ENCD_VERSION)

host-check: check-install-tree

# The install test alone (the Debian lanes of `make check` run it too).
.PHONY: check-install vm-check-install
check-install: deps
	@$(MAKE) --no-print-directory vm-check-install

vm-check-install: vm-kver
	@$(PKG_DIR)/install-test.sh --kver $(VM_KVER)
