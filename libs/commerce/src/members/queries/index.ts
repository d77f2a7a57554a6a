import { ListMembersHandler } from './list-members/list-members.handler.js';

export const MemberQueryHandlers = [ListMembersHandler];
