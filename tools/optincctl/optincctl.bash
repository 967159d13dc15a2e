# SPDX-License-Identifier: BSD-3-Clause
# bash completion for optincctl(8): options, -d datapaths (optincd's
# telemetry prefixes under /var/run/dpdk), -n namespaces, objects and verbs.

_optincctl()
{
	local cur prev words cword obj verb i
	_init_completion || return

	case $prev in
	-d|--datapath)
		local p
		p=$(cd /var/run/dpdk 2>/dev/null && printf 'daemon:%s ' *)
		COMPREPLY=($(compgen -W "daemon kmod kmod: $p" -- "$cur"))
		if [[ ${#COMPREPLY[@]} == 1 && $COMPREPLY == *: ]]; then
			compopt -o nospace 2>/dev/null
		fi
		return 0 ;;
	-n|--netns)
		COMPREPLY=($(compgen -W "$(ip netns list 2>/dev/null | cut -d' ' -f1)" -- "$cur"))
		return ;;
	--prefix)
		COMPREPLY=($(compgen -W "$(cd /var/run/dpdk 2>/dev/null && echo *)" -- "$cur"))
		return ;;
	-b|--batch)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	esac
	# the first word that is not an option or an option's value
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		-d|--datapath|-n|--netns|--prefix|-b|--batch) ((i++)) ;;
		-*) ;;
		*) if [ -z "$obj" ]; then obj=${words[i]}; elif [ -z "$verb" ]; then verb=${words[i]}; fi ;;
		esac
	done
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "-d -n -j -p -s --prefix -b -V -h" -- "$cur"))
		return
	fi
	case $obj in
	'') COMPREPLY=($(compgen -W "switch port job table xdp daemon kmod help" -- "$cur")) ;;
	switch) [ -z "$verb" ] && COMPREPLY=($(compgen -W "show add set del help" -- "$cur")) ;;
	port) [ -z "$verb" ] && COMPREPLY=($(compgen -W "show add del help" -- "$cur")) ;;
	job)
		if [ -z "$verb" ]; then
			COMPREPLY=($(compgen -W "show add del help" -- "$cur"))
		elif [ "$verb" = add ]; then
			COMPREPLY=($(compgen -W "id size bits mode table token window max-elems up up-job up-rank up-token fanin" -- "$cur"))
		fi ;;
	table)
		if [ -z "$verb" ]; then
			COMPREPLY=($(compgen -W "show load help" -- "$cur"))
		else
			_filedir tbl
		fi ;;
	daemon) [ -z "$verb" ] && COMPREPLY=($(compgen -W "show ports lcores jobs job table help" -- "$cur")) ;;
	kmod) [ -z "$verb" ] && COMPREPLY=($(compgen -W "show ports jobs switch port job table help" -- "$cur")) ;;
	xdp) [ -z "$verb" ] && COMPREPLY=($(compgen -W "attach detach show help" -- "$cur")) ;;
	esac
}
complete -F _optincctl optincctl
